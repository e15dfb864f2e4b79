/**
 * Several lite nodes on one database: what each tells the others, and who runs the sweep.
 *
 * Hints travel by NOTIFY on channel `svc_lite`: `t<ids>` (tails moved; sent after the
 * commit, several streams per statement), `ms<id>` / `mb<id>` / `mB<id>` (a stream's, a
 * basin's, or a basin's and all its streams' metadata changed; sent in the changing
 * transaction), `k` (tokens changed). They carry ids, never names: any role that may connect
 * can LISTEN (and NOTIFY), so a hint's content is never trusted either: it only says what to
 * read again from the tables. The listening connection is checked every second and made again
 * when it fails (listener.ts), and a poll every `pollMs` (tails of the streams this node
 * serves) bounds what a missed hint can delay; the catalog's cache bounds the rest (catalog.ts).
 * Notifications are coalesced before they are acted on (hint-coalescer.ts): a role flooding the
 * channel costs a node a bounded number of re-reads a second.
 *
 * The periodic sweep runs on one node at a time: the holder of the sweep's lease (lease.ts).
 */
import type { Cluster, ClusterHint } from "../seams.js";
import type { PgConfig } from "./config.js";
import type { Db } from "./db.js";
import { HintCoalescer } from "./hint-coalescer.js";
import { SweepLease } from "./lease.js";
import { CHANNEL, Listener } from "./listener.js";

/** The shortest time between two notifications of moved tails from one node. */
const ANNOUNCE_MS = 5;

/** A positive safe integer from a hint's text, or undefined. */
function idOf(text: string): number | undefined {
  if (!/^[1-9][0-9]{0,15}$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** A notification's payload as a hint; undefined when it is not one of ours. */
function parseHint(payload: string): ClusterHint | undefined {
  if (payload === "k") return { kind: "tokens" };
  if (payload === "t*") return { kind: "tails" };
  if (payload.startsWith("t")) {
    const ids = payload
      .slice(1)
      .split(":")[0]!
      .split(",")
      .map(Number)
      .filter((n) => Number.isSafeInteger(n) && n > 0);
    return ids.length > 0 ? { kind: "tails", ids } : undefined;
  }
  if (payload === "m") return { kind: "meta" };
  // A node of an older version names a basin or stream ("m[...]"): read every one again.
  if (payload.startsWith("m[")) return { kind: "meta" };
  const id = idOf(payload.slice(2));
  if (id === undefined) return undefined;
  if (payload.startsWith("ms")) return { kind: "meta", streamId: id };
  if (payload.startsWith("mb")) return { kind: "meta", basinId: id };
  if (payload.startsWith("mB")) return { kind: "meta", basinId: id, streams: true };
  return undefined;
}

interface ClusterDeps {
  /** Told every hint first (the catalog drops what it names). */
  forget: (h: ClusterHint) => void;
  /** The name of basin `id`, to drop its streams (a hint names only the id). */
  basinName: (id: number) => Promise<string | undefined>;
}

export class PgCluster implements Cluster {
  private onHint: ((h: ClusterHint) => void) | undefined;
  private readonly listener: Listener;
  private readonly lease: SweepLease;
  private pollTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly moved = new Set<number>();
  private announcing = false;
  private readonly coalescer: HintCoalescer;

  constructor(
    config: PgConfig,
    private readonly db: Db,
    private readonly log: (m: string) => void,
    private readonly timings: { pollMs: number; leaseMs: number },
    private readonly deps: ClusterDeps,
  ) {
    this.listener = new Listener(
      db.primary,
      log,
      timings.pollMs,
      (p) => this.onNotify(p),
      () => this.reread(),
      // Nothing cached is served from the moment contact is lost: the database may be another
      // when it answers again (a failover), and lack what was cached.
      () => this.hint({ kind: "lost" }),
    );
    // Connections were lost and a host answers again, perhaps another one (a promoted standby).
    db.primary.onMoved = () => this.reread();
    this.lease = new SweepLease(db, log, timings.leaseMs);
    this.coalescer = new HintCoalescer((h) => this.onCoalesced(h), log);
  }

  watch(onHint: (h: ClusterHint) => void): void {
    this.onHint = onHint;
    this.listener.start();
    this.lease.start();
    this.pollTimer = setInterval(() => this.hint({ kind: "tails" }), this.timings.pollMs);
    this.pollTimer.unref();
  }

  /**
   * Whatever moved while this node could not hear (or while it was cut off: the database it
   * finds may be another, which lacks what it acknowledged): read everything again, and serve
   * nothing remembered before that.
   */
  private reread(): void {
    this.hint({ kind: "lost" });
    this.hint({ kind: "tails" });
    this.hint({ kind: "meta" });
    this.hint({ kind: "tokens" });
  }

  leadsSweep(): boolean {
    return !this.closed && this.lease.held();
  }

  private hint(h: ClusterHint): void {
    this.deps.forget(h);
    this.onHint?.(h);
  }

  /**
   * Tails moved by this node, told after the commit and outside it: PostgreSQL serialises the
   * commits of notifying transactions (a lock held through the WAL flush), which in the append
   * statement allowed one append commit per fsync. One statement at a time carries every
   * stream moved meanwhile, committed without waiting for the flush (a lost hint is covered by
   * the poll). Metadata and token hints go in their own transactions (catalog.ts).
   */
  announce(h: ClusterHint): void {
    if (h.kind !== "tails" || !h.ids || this.closed) return;
    for (const id of h.ids) this.moved.add(id);
    if (this.announcing) return;
    this.announcing = true;
    void (async () => {
      while (this.moved.size > 0 && !this.closed) {
        const ids = [...this.moved];
        this.moved.clear();
        const payload = `t${ids.join(",")}`;
        // A payload is at most 8000 bytes: a longer list says "every stream" (the receivers poll all they serve).
        await this.db
          .write("SELECT pg_catalog.set_config('synchronous_commit', 'off', true), pg_catalog.pg_notify($1, $2)", [
            CHANNEL,
            payload.length < 7900 ? payload : "t*",
          ])
          .catch((e: unknown) => this.log(`notification failed (other nodes will poll): ${(e as Error).message}`));
        // At most one notification per ANNOUNCE_MS: a stream appended to a thousand times a
        // second costs the other nodes one re-read per period, not one per append.
        await new Promise((r) => setTimeout(r, ANNOUNCE_MS));
      }
      this.announcing = false;
    })();
  }

  private onNotify(payload: string): void {
    const h = parseHint(payload);
    if (h) this.coalescer.add(h);
  }

  private onCoalesced(h: ClusterHint): void {
    if (h.kind !== "meta" || !h.streams || h.basinId === undefined) return this.hint(h);
    // While notifications flood in, no basin is looked up for one: every cached stream is read again.
    if (this.coalescer.flooded) return this.hint(h);
    // A basin deleted with its streams: its name says which streams to drop.
    this.deps.basinName(h.basinId).then(
      (basin) => this.hint(basin === undefined ? h : { ...h, basin }),
      () => this.hint(h), // without the name, every stream is read again
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.coalescer.close();
    await Promise.all([this.lease.close(), this.listener.close()]);
  }
}
