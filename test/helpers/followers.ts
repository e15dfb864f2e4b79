/**
 * Followers for the heartbeat regressions: svc clients following one stream from record 0 over a
 * framed session or SSE, each on a list of nodes with a chosen one first (failover.ts starts at a
 * random node; here it starts at the first), recording what they receive and judging as they go:
 *
 * - every record exactly once, in order (`seqs`, and `error` if the read died);
 * - no heartbeat announces a tail above the last record received + 1 (`overclaims`): a session's
 *   heartbeat never names a record it has not delivered (protocol.md §6.6).
 */
import { vi } from "vitest";
import { SvcClient } from "../../src/client/client.js";

export interface Follower {
  readonly name: string;
  readonly seqs: number[];
  /** Heartbeats that announced a tail past what had arrived. */
  readonly overclaims: string[];
  heartbeats: number;
  error: string | undefined;
  /** Ends the read and closes its client. */
  stop(): Promise<void>;
}

/** Follows `basin`/`stream` from 0 through `endpoints` (the first is where it starts). */
export function follow(
  endpoints: string[],
  token: string,
  basin: string,
  stream: string,
  transport: "session" | "sse",
  name: string = transport,
  /** Ms to spend on each batch (a slow reader: the server waits for its connection). */
  pauseMs = 0,
): Follower {
  const list = endpoints.join(",");
  const random = vi.spyOn(Math, "random").mockReturnValue(0);
  let client: SvcClient;
  try {
    client = new SvcClient({ accountEndpoint: list, basinEndpoint: list, accessToken: token });
  } finally {
    random.mockRestore();
  }
  const abort = new AbortController();
  const f: Follower = {
    name,
    seqs: [],
    overclaims: [],
    heartbeats: 0,
    error: undefined,
    async stop() {
      abort.abort();
      await reading;
      await client.close();
    },
  };
  const reading = (async () => {
    try {
      const events = client.basin(basin).stream(stream).read({ seqNum: 0 }, {}, { transport, signal: abort.signal });
      for await (const ev of events) {
        const next = f.seqs.length === 0 ? 0 : f.seqs[f.seqs.length - 1]! + 1;
        if (ev.type === "heartbeat") {
          f.heartbeats++;
          if (ev.tail && ev.tail.seqNum > next)
            f.overclaims.push(`a heartbeat announced tail ${ev.tail.seqNum} after record ${next - 1}`);
          continue;
        }
        for (const r of ev.records) f.seqs.push(r.seqNum);
        if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
      }
    } catch (e) {
      f.error = (e as Error).message;
    }
  })();
  return f;
}

/** Polls `cond` every 20 ms until it holds; throws `what` after `ms`. */
export async function until(cond: () => boolean, ms: number, what: () => string): Promise<void> {
  if (!(await settled(cond, ms))) throw new Error(`timed out: ${what()}`);
}

/** Polls `cond` every 20 ms until it holds (true) or `ms` passed (false). */
export async function settled(cond: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

/** What is wrong with what `f` received, given records 0..n-1 were appended; undefined when nothing. */
export function judge(f: Follower, n: number): string | undefined {
  const problems: string[] = [];
  if (f.error !== undefined) problems.push(`died: ${f.error}`);
  const missing: number[] = [];
  const seen = new Set(f.seqs);
  for (let i = 0; i < n; i++) if (!seen.has(i)) missing.push(i);
  if (missing.length > 0) problems.push(`${missing.length} records missing (first ${missing.slice(0, 5).join(",")})`);
  if (seen.size !== f.seqs.length) problems.push(`${f.seqs.length - seen.size} records received twice`);
  if (f.seqs.some((s, i) => i > 0 && s <= f.seqs[i - 1]!)) problems.push("records out of order");
  if (f.overclaims.length > 0) problems.push(`${f.overclaims.length} heartbeats past the records: ${f.overclaims[0]}`);
  return problems.length === 0 ? undefined : `${f.name}: ${problems.join("; ")}`;
}
