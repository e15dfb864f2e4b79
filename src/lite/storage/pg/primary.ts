/**
 * Which of the storage URL's hosts a node writes to: the writable primary.
 *
 * Every connection a node makes (its pools, its listening connection) goes to `current`, and
 * (unless the URL says `target_session_attrs=any`) is checked writable before it is used: a
 * host that is a standby, or was a primary and turned read-only, is refused. When a connection
 * fails in a way that says the primary may have moved (it cannot be reached, it was shut
 * down, a write was refused as read-only), `suspect()` starts one search: each host in turn,
 * from the current one, is asked whether it is writable, and the first that is becomes
 * `current`. Each search that ends on a host bumps `generation`: connections made before it
 * are closed when they are given back, never reused. With one host the search only checks
 * that host: a managed service that moves its address to the promoted standby (a DNS flip)
 * is followed the same way, since a new connection resolves the name again.
 *
 * `onMoved` is told each time a search ends on a host after connections were lost: what this
 * node remembers of the database (tails, cached batches) must be checked against it again.
 */
import pg from "pg";
import { clientOptions, hostName, type PgConfig, type PgHost } from "./config.js";
import { endWithin, NoAnswer, NotSent } from "./wait.js";

/** The most one host's check may take during a search. */
const PROBE_MS = 2_000;
/** A search that found no writable host is tried again after this long, on the next suspicion. */
const RETRY_MS = 250;

/** SQLSTATEs after which the primary may have moved: read-only, shut down, starting or recovering. */
const MOVED_STATES = new Set(["25006", "57P01", "57P02", "57P03", "08000", "08001", "08003", "08004", "08006"]);

/** A host answered, but is not writable (a standby, or a primary turned read-only). */
export class ReadOnlyHost extends Error {}

/** Whether error `e` of a statement or connection says the primary may have moved. */
export function saysMoved(e: unknown): boolean {
  if (e instanceof ReadOnlyHost) return true;
  // A deadline says the database is slow or silent; the circuit (db.ts) searches when it opens.
  if (e instanceof NoAnswer) return false;
  if (e instanceof NotSent) return !e.timedOut;
  const code = (e as { code?: unknown })?.code;
  if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return MOVED_STATES.has(code);
  // No SQLSTATE: the connection itself failed (refused, reset, ended, timed out).
  return e instanceof Error;
}

/** Whether connection `c` may be written through: `SHOW transaction_read_only` is off. */
async function writable(c: pg.ClientBase): Promise<boolean> {
  const r = await c.query<{ transaction_read_only: string }>("SHOW transaction_read_only");
  return r.rows[0]?.transaction_read_only === "off";
}

export class Primary {
  private index = 0;
  /** Bumped each time a search settles on a host: connections of an older one are not reused. */
  generation = 0;
  private searching: Promise<void> | undefined;
  private lastFailed = 0;
  /** A connection was lost since the last search: the next one that settles tells `onMoved`. */
  private lost = false;
  onMoved: ((host: PgHost) => void) | undefined;

  constructor(
    private config: PgConfig,
    private readonly log: (m: string) => void,
  ) {}

  /** The same hosts with settings learnt since (the schema found at start: its search path). */
  useConfig(c: PgConfig): void {
    this.config = c;
  }

  get current(): PgHost {
    return this.config.hosts[this.index]!;
  }

  /** `clientOptions` for a connection to the current host. */
  options(connectMs: number): ReturnType<typeof clientOptions> {
    return clientOptions(this.config, connectMs, this.current);
  }

  /**
   * A `pg.Client` class for pools: each client connects to the host current when it is made
   * (the pool checks it writable before handing it out: `check` as its onConnect).
   */
  clientClass(): typeof pg.Client {
    const primary = this;
    return class extends pg.Client {
      readonly generation = primary.generation;
      constructor(opts: pg.ClientConfig) {
        // The pool keeps the password out of its options' enumerable keys: a spread loses it.
        super({ ...opts, password: opts.password, host: primary.current.host, port: primary.current.port });
      }
    };
  }

  /** Whether a pooled client was made for an older host than the current one. */
  stale(c: pg.ClientBase): boolean {
    return (c as { generation?: number }).generation !== this.generation;
  }

  /** Refuses a connection that is not writable (when writability is asked for), and suspects. */
  async check(c: pg.ClientBase): Promise<void> {
    if (!this.config.requireWritable || (await writable(c))) return;
    this.suspect(new ReadOnlyHost("read-only"));
    throw new ReadOnlyHost(`${hostName(this.current)} is read-only (a standby?): looking for the writable primary`);
  }

  /** A connection failed with `e`: if that says the primary may have moved, search (once at a time). */
  suspect(e: unknown): void {
    if (!saysMoved(e)) return;
    this.lost = true;
    if (this.searching || performance.now() - this.lastFailed < RETRY_MS) return;
    this.searching = this.search().finally(() => {
      this.searching = undefined;
    });
  }

  /** Finds a writable host (waits for a search under way); true when one answered. */
  async find(): Promise<boolean> {
    if (!this.searching)
      this.searching = this.search().finally(() => {
        this.searching = undefined;
      });
    await this.searching;
    return this.lastFailed === 0;
  }

  private async search(): Promise<void> {
    const hosts = this.config.hosts;
    for (let k = 0; k < hosts.length; k++) {
      const i = (this.index + k) % hosts.length;
      if (await this.answers(hosts[i]!)) return this.settle(i);
    }
    this.lastFailed = performance.now();
  }

  private settle(i: number): void {
    const moved = i !== this.index;
    this.index = i;
    this.lastFailed = 0;
    this.generation++;
    if (moved || this.config.hosts.length > 1)
      this.log(`database primary: ${hostName(this.current)}${moved ? " (moved)" : ""}`);
    if (this.lost) {
      this.lost = false;
      this.onMoved?.(this.current);
    }
  }

  /** Whether `h` answers within PROBE_MS and (when asked for) is writable. */
  private async answers(h: PgHost): Promise<boolean> {
    const c = new pg.Client({
      ...clientOptions(this.config, PROBE_MS, h),
      query_timeout: PROBE_MS,
      application_name: "svc lite primary check",
    });
    c.on("error", () => {});
    try {
      await c.connect();
      return !this.config.requireWritable || (await writable(c));
    } catch {
      return false;
    } finally {
      await endWithin(c, 500);
    }
  }
}
