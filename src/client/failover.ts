/**
 * Several endpoints for one service (`SVC_ACCOUNT_ENDPOINT=http://a:4301,http://b:4302`, as
 * kcat's `-b a,b` or nats' `-s a,b`): nodes of one svc lite cluster, or any servers that serve
 * the same basins. Requests are built against the first URL of each list; the Caller asks this
 * map where to send each one instead:
 *
 * - spread: each client starts at a random node of each list, so many svc processes spread
 *   their connections over the nodes, and stays there while it answers (connections are kept);
 * - failover: when a node fails in a way that is safe to try elsewhere, the next node is tried
 *   and becomes the preferred one; a node that refuses the connection is not retried first
 *   (the Caller retries, over the whole list, once no node could be reached). What is safe is the in-doubt rule of every retry
 *   (transport/retry.ts): a request that may have taken effect (an append whose connection died
 *   after it was sent) is never sent again, to this node or another; its outcome is reported
 *   unknown as always. A read resumes at its next sequence number on whichever node answers.
 */
import { clientError, SvcError } from "../errors.js";

export class Failover {
  /** Each list: bases ending in `/v1`, as the client builds URLs from. */
  private readonly groups: string[][];
  private readonly preferred: number[];

  constructor(groups: string[][], random: () => number = Math.random) {
    this.groups = groups.filter((g) => g.length > 1);
    this.preferred = this.groups.map((g) => Math.floor(random() * g.length));
  }

  get active(): boolean {
    return this.groups.length > 0;
  }

  /** Where `url` may go, the preferred node first; `[url]` when it is not under a list. */
  candidates(url: string): string[] {
    const found = this.locate(url);
    if (!found) return [url];
    const { group, index } = found;
    const roots = this.groups[group]!.map((b) => b.replace(/\/v1$/, ""));
    const rest = url.slice(roots[index]!.length);
    const start = this.preferred[group]!;
    return roots.map((_, k) => `${roots[(start + k) % roots.length]}${rest}`);
  }

  /** Where `url` may go, in the list's own order (`svc ping` reports each node). */
  listed(url: string): string[] {
    const found = this.locate(url);
    if (!found) return [url];
    const roots = this.groups[found.group]!.map((b) => b.replace(/\/v1$/, ""));
    const rest = url.slice(roots[found.index]!.length);
    return roots.map((r) => `${r}${rest}`);
  }

  /** The node that served `url` answered: it stays the preferred one. */
  answered(url: string): void {
    const found = this.locate(url);
    if (found) this.preferred[found.group] = found.index;
  }

  /** The node of `url` failed: the next one of its list becomes the preferred one. */
  failed(url: string): void {
    const found = this.locate(url);
    if (found && this.preferred[found.group] === found.index)
      this.preferred[found.group] = (found.index + 1) % this.groups[found.group]!.length;
  }

  /** The node `url` is on, as written in the list (`http://a:4301`), for messages. */
  node(url: string): string {
    const found = this.locate(url);
    return found ? this.groups[found.group]![found.index]!.replace(/\/v1$/, "") : new URL(url).origin;
  }

  /** Which list and node `url` is under: by the node's root (its base without `/v1`: `/ping` too). */
  private locate(url: string): { group: number; index: number } | undefined {
    for (let group = 0; group < this.groups.length; group++) {
      const index = this.groups[group]!.findIndex((b) => {
        const root = b.replace(/\/v1$/, "");
        return url === root || url.startsWith(`${root}/`) || url.startsWith(`${root}?`);
      });
      if (index >= 0) return { group, index };
    }
    return undefined;
  }
}

/**
 * Whether a failure of a request may be tried on another node: it was refused or failed before
 * anything could take effect (connect refused, a draining or overloaded node), or the request
 * is idempotent and the failure retryable (a read, a check-tail, a create with its request
 * token). An append that may have been applied is never moved.
 */
export function movable(e: unknown, idempotent: boolean): boolean {
  return e instanceof SvcError && e.retryable && (idempotent || !e.sideEffects);
}

/** `a,b,c` → the list of endpoints, each trimmed; one URL is a list of one. */
export function endpointList(text: string): string[] {
  const list = text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (list.length > 1 && list.some((s) => s.includes("{basin}")))
    throw clientError(
      "usage",
      `a list of endpoints routes requests directly (svc-basin header); {basin} host routing takes one URL (got ${JSON.stringify(text)})`,
    );
  return list;
}
