/**
 * Several svc lite nodes on one fresh PostgreSQL database, for the multi-node regressions.
 * A node may reach the database through its own delaying TCP proxy (a database "far away",
 * test/helpers/delay-proxy.ts): its --storage URL then names the proxy's port, and
 * `setDelay(ms)` changes the delay live; `partition()`/`heal()` cut it off from the database
 * silently, `silence(application_name)` one of its connections for good (the listener's is
 * "svc lite listener"). close() kills every node, closes the proxies and drops the database.
 *
 *   const cluster = await PgCluster.create();
 *   const p = await cluster.node({ delayMs: 50, env: { SVC_LITE_SWEEP_MS: "100" } });
 *   const a = await cluster.node();
 *   await p.client.call("GET", "/v1/basins");
 */
import pg from "pg";
import { startDelayProxy } from "./delay-proxy.js";
import { type Call, type Lite, type LiteClient, liteClient, type Reply, startLite } from "./lite.js";
import { freshDatabase, PG_PASSWORD } from "./postgres.js";

type Proxy = Awaited<ReturnType<typeof startDelayProxy>>;
/** A database's URL (no password) and how to drop it after the test. */
export type Database = Awaited<ReturnType<typeof freshDatabase>>;

export interface PgNode {
  lite: Lite;
  client: LiteClient;
  /** Present when the node reaches the database through a delaying proxy. */
  proxy: Proxy | undefined;
}

export interface NodeOptions {
  /** Put a delaying proxy between this node and the database (ms each way; 0 for faults only). */
  delayMs?: number;
  env?: Record<string, string>;
  /** More `svc lite` arguments. */
  args?: string[];
}

export class PgCluster {
  readonly nodes: PgNode[] = [];
  private readonly proxies: Proxy[] = [];

  private constructor(private readonly db: Database) {}

  /** On `db` (a database of a private PostgreSQL, say), else on a fresh one of the run's. */
  static async create(db?: Database): Promise<PgCluster> {
    return new PgCluster(db ?? (await freshDatabase()));
  }

  /** The database's URL (no password; PGPASSWORD is passed to the nodes). */
  get url(): string {
    return this.db.url;
  }

  /** A connection of the test's own to the database (for asserting on tables, or cutting connections); the caller ends it. */
  async admin(): Promise<pg.Client> {
    const url = new URL(this.db.url);
    url.password = PG_PASSWORD;
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    return client;
  }

  async node(opts: NodeOptions = {}): Promise<PgNode> {
    let url = this.db.url;
    let proxy: Proxy | undefined;
    if (opts.delayMs !== undefined) {
      const u = new URL(this.db.url);
      proxy = await startDelayProxy(Number(u.port), opts.delayMs, u.hostname);
      this.proxies.push(proxy);
      u.port = String(proxy.port);
      url = u.toString();
    }
    const lite = await startLite({ postgres: url, env: opts.env, args: opts.args });
    const node = { lite, client: liteClient(lite), proxy };
    this.nodes.push(node);
    return node;
  }

  async close(): Promise<void> {
    for (const n of this.nodes) {
      await n.client.close().catch(() => undefined);
      await n.lite.kill9().catch(() => undefined);
    }
    for (const p of this.proxies) await p.close().catch(() => undefined);
    await this.db.drop();
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The error code of a JSON error body, or undefined. */
export function codeOf(r: Reply): string | undefined {
  try {
    return (r.json() as { code?: string }).code;
  } catch {
    return undefined;
  }
}

/** "200", or "409 stream_deletion_pending", or "412 {...}": for messages. */
export function show(r: Reply): string {
  return r.status === 200 || r.status === 201 || r.status === 202 ? String(r.status) : `${r.status} ${r.text()}`;
}

/**
 * A call retried while it answers 409 transaction_conflict (retryable, nothing written: what
 * a client does), at most `tries` times.
 */
export async function retryingConflicts(
  c: LiteClient,
  method: string,
  path: string,
  opts: Call,
  tries = 50,
): Promise<Reply> {
  for (let i = 1; ; i++) {
    const r = await c.call(method, path, opts);
    if (i >= tries || r.status !== 409 || codeOf(r) !== "transaction_conflict") return r;
    await sleep(10);
  }
}

export interface JsonRecord {
  headers?: [string, string][];
  body?: string;
  timestamp?: number;
}

/** A unary JSON append of `records` to `basin`/`stream`, retried on 409 transaction_conflict. */
export function append(
  c: LiteClient,
  basin: string,
  stream: string,
  records: JsonRecord[],
  extra: { fencing_token?: string; match_seq_num?: number; format?: "base64" } = {},
): Promise<Reply> {
  const { format, ...conditions } = extra;
  return retryingConflicts(c, "POST", `/v1/streams/${encodeURIComponent(stream)}/records`, {
    basin,
    json: { records, ...conditions },
    headers: format ? { "svc-format": format } : undefined,
  });
}

/** A `fence` command record (raw format) installing `token`. */
export function fenceRecord(token: string): JsonRecord {
  return { headers: [["", "fence"]], body: token };
}

/** A `trim` command record to `seq`, for an append with `format: "base64"`. */
export function trimRecord(seq: number): JsonRecord {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(seq));
  return { headers: [["", Buffer.from("trim").toString("base64")]], body: b.toString("base64") };
}

/** A plain record, for an append with `format: "base64"`. */
export function base64Record(text: string): JsonRecord {
  return { body: Buffer.from(text).toString("base64") };
}

/** What a node logs when it takes the sweep's lease, and when it stops leading. */
export const LEADS = "this node now runs the periodic sweep";
export const STOPS_LEADING = "this node no longer runs the periodic sweep";

/** The sweep's lease term the lease tests run with (ms), and their sweep period. */
export const LEASE_MS = 3_000;
export const SWEEP_MS = 200;
/**
 * How long after the sweep's leader stops answering another node may take over: the lease runs out a term after its last renewal, the next node tries within a third
 * of a term, then sweeps within a sweep period.
 */
export const TAKEOVER_MS = LEASE_MS + LEASE_MS / 3 + SWEEP_MS;

/** When (Date.now()) `cond` first held, polled every 25 ms; undefined if not within `ms`. */
export async function firstTime(cond: () => boolean | Promise<boolean>, ms: number): Promise<number | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await cond()) return Date.now();
    if (Date.now() > deadline) return undefined;
    await sleep(25);
  }
}

/** How many times `line` appears in `node`'s log so far. */
export function logged(node: PgNode, line: string): number {
  return node.lite.stderr().split(line).length - 1;
}
