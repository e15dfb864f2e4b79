/**
 * Storage on PostgreSQL: any number of svc lite nodes on one database (schema.ts).
 *
 * Reads are synchronous by the Storage contract: they go through SyncQuery (a worker thread
 * with its own connection). Writes go through a pool on this thread.
 *
 * Appends. The database is the arbiter of every stream's tail. A node sequences a batch
 * against its cached tail; the batch lands only if the stored tail still is where the node
 * thought, checked and moved in the same statement that inserts the rows:
 *
 *   WITH t AS (UPDATE svc_tails SET … WHERE id = $1 AND next_seq = $first AND <stream live>),
 *        b AS (INSERT INTO svc_batches SELECT … FROM unnest(…) WHERE EXISTS (SELECT 1 FROM t))
 *
 * One statement is one transaction and one round trip; its commit (synchronous_commit=on) is
 * durable when the answer arrives, so the ack follows the commit. Per stream one statement is
 * in flight at a time and every batch queued meanwhile goes into the next one (group commit,
 * multi-row insert); different streams commit in parallel on the pool, and PostgreSQL flushes
 * concurrent commits with one WAL fsync. When another node moved the tail first, nothing is
 * written and the group (and everything queued behind it) fails with 409 `transaction_conflict`
 * (retryable, no side effects); the stream state then reloads the stored tail.
 *
 * Changes made by any node are announced with NOTIFY on channel `svc_lite` (a tail moved:
 * `t<id>`, sent after the commit: `announce`; metadata changes, in their transaction). A
 * notification is only a hint: any role that may connect can send one, so its content is
 * never applied; the node re-reads what it names from the tables and hands that to the store. When the
 * listening connection drops, it reconnects, and a poll of the loaded streams' tails every
 * `pollMs` bounds the delay of a missed notification.
 */
import pg from "pg";
import { SvcError } from "../../../errors.js";
import type { StoredToken } from "../../auth/token-info.js";
import { BATCH_HEAD_BYTES, batchHeader, decodeBatch, encodeBatch } from "../batch-codec.js";
import type { BasinMeta, BatchHead, MetaOp, Storage, StorageListener, StoredBatch, StreamMeta, StreamStateRecord } from "../storage.js";
import { clientOptions, redactedUrl, type PgConfig } from "./config.js";
import { migrate } from "./schema.js";
import { SyncQuery } from "./sync-query.js";

const CHANNEL = "svc_lite";
/** Batches per append statement (group commit), and their encoded bytes. */
const MAX_GROUP_BATCHES = 512;
const MAX_GROUP_BYTES = 8 * 1024 * 1024;

interface Pending { batch: StoredBatch; data: Buffer; state: StreamStateRecord; resolve: () => void; reject: (e: unknown) => void }
interface Queue { pending: Pending[]; busy: boolean }

function num(v: unknown): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new Error(`database value ${String(v)} is not a safe integer`);
  return n;
}

function bytes(v: unknown): Buffer {
  const u = v as Uint8Array;
  return Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}

function conflict(seq: number): SvcError {
  return new SvcError({ code: "transaction_conflict", origin: "server", status: 409, retryable: true, sideEffects: false, message: `the stream was appended through another node at the same moment; nothing was written at seq ${seq}: retry` });
}

/** The session-level advisory lock of the node that runs the periodic sweep ("svc_sw"). */
const SWEEP_LOCK = 0x7376_635f_7377;

function storageError(e: unknown): SvcError {
  return e instanceof SvcError ? e : new SvcError({ code: "storage", origin: "server", status: 500, retryable: true, message: `database write failed: ${(e as Error)?.message ?? e}`, cause: e });
}

function exists(what: string): SvcError {
  return new SvcError({ code: "resource_already_exists", origin: "server", status: 409, message: `${what} was just created through another node` });
}

export class PgStorage implements Storage {
  readonly durable = true;
  readonly shared = true;
  private readonly queues = new Map<number, Queue>();
  private listener: StorageListener | undefined;
  private listenClient: pg.Client | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private polls = 0;
  private readonly announcements = new Map<number, string>();
  /** Streams named by notifications since the last re-read of their stored state. */
  private readonly hinted = new Set<number>();
  private hintScheduled = false;
  private announcing = false;
  private closed = false;
  /** The listening connection is lost and not yet back (said once per outage in the log). */
  private listenLost = false;
  /** The tail poll is failing (said once until it succeeds again). */
  private pollFailing = false;
  /** The listening connection whose session holds the sweep lock, when this node holds it. */
  private sweepHolder: pg.Client | undefined;

  private constructor(private readonly config: PgConfig, private readonly pool: pg.Pool, private readonly sync: SyncQuery, private readonly log: (m: string) => void, private readonly pollMs: number) {}

  /** Connects, applies migrations under the advisory lock, and opens the pool. */
  static async open(config: PgConfig, log: (m: string) => void, pollMs = 1000): Promise<PgStorage> {
    const where = redactedUrl(config);
    const client = new pg.Client(clientOptions(config));
    try {
      await client.connect();
      await migrate(client, where);
      await warnIfNotDurable(client, where, log);
    } catch (e) {
      if (e instanceof SvcError) throw e;
      throw new SvcError({ code: "unavailable", origin: "server", status: 503, message: `cannot use PostgreSQL at ${where}: ${(e as Error).message}` });
    } finally {
      await client.end().catch(() => {});
    }
    // Every write is bounded: a database that stops answering (a partition, a frozen host: no
    // reset, no FIN) fails the statement instead of holding the stream's write queue forever.
    const pool = new pg.Pool({ ...clientOptions(config), max: config.poolSize, statement_timeout: config.writeTimeoutMs, query_timeout: config.writeTimeoutMs + 1_000 });
    pool.on("error", (e) => log(`database connection lost: ${e.message}`));
    return new PgStorage(config, pool, new SyncQuery(clientOptions(config)), log, pollMs);
  }

  get where(): string {
    return redactedUrl(this.config);
  }

  /** The root token every node shares: the first node's candidate wins. */
  async sharedRootToken(candidate: string): Promise<string> {
    await this.pool.query("INSERT INTO svc_settings (key, value) VALUES ('root_token', $1) ON CONFLICT (key) DO NOTHING", [candidate]);
    const { rows } = await this.pool.query<{ value: string }>("SELECT value FROM svc_settings WHERE key = 'root_token'");
    return rows[0]!.value;
  }

  private one(sql: string, params: unknown[]): unknown[] | undefined {
    return this.sync.query(sql, params)[0];
  }

  getBasin(name: string): BasinMeta | undefined {
    const row = this.one("SELECT meta FROM svc_basins WHERE name = $1", [name]);
    return row && JSON.parse(row[0] as string);
  }

  listBasins(prefix: string, after: string, limit: number): BasinMeta[] {
    return this.sync.query("SELECT meta FROM svc_basins WHERE starts_with(name, $1) AND name > $2 ORDER BY name LIMIT $3", [prefix, after, limit]).map((r) => JSON.parse(r[0] as string));
  }

  getStream(basin: string, name: string): StreamMeta | undefined {
    const row = this.one("SELECT meta FROM svc_streams WHERE basin = $1 AND name = $2", [basin, name]);
    return row && JSON.parse(row[0] as string);
  }

  listStreams(basin: string, prefix: string, after: string, limit: number): StreamMeta[] {
    return this.sync.query("SELECT meta FROM svc_streams WHERE basin = $1 AND starts_with(name, $2) AND name > $3 ORDER BY name LIMIT $4", [basin, prefix, after, limit]).map((r) => JSON.parse(r[0] as string));
  }

  getState(id: number): StreamStateRecord | undefined {
    const row = this.one("SELECT state FROM svc_tails WHERE id = $1", [id]);
    return row && JSON.parse(row[0] as string);
  }

  getToken(id: string): StoredToken | undefined {
    const row = this.one("SELECT token FROM svc_tokens WHERE id = $1", [id]);
    return row && JSON.parse(row[0] as string);
  }

  getTokenByKey(keyId: string): StoredToken | undefined {
    const row = this.one("SELECT token FROM svc_tokens WHERE key_id = $1", [keyId]);
    return row && JSON.parse(row[0] as string);
  }

  listTokens(prefix: string, after: string, limit: number): StoredToken[] {
    return this.sync.query("SELECT token FROM svc_tokens WHERE starts_with(id, $1) AND id > $2 ORDER BY id LIMIT $3", [prefix, after, limit]).map((r) => JSON.parse(r[0] as string));
  }

  allocateStreamId(): number {
    return num(this.one("SELECT nextval('svc_stream_ids')", [])![0]);
  }

  async writeMeta(ops: MetaOp[]): Promise<void> {
    const c = await this.pool.connect();
    let failure: unknown;
    try {
      await c.query("BEGIN");
      const changed = new Set<string>();
      for (const o of ops) await this.applyMeta(c, o, changed);
      for (const key of changed) await c.query("SELECT pg_notify($1, $2)", [CHANNEL, `m${key}`]);
      await c.query("COMMIT");
    } catch (e) {
      failure = e;
      await c.query("ROLLBACK").catch(() => {});
      if ((e as { code?: string }).code === "23505") throw exists("it");
      throw storageError(e);
    } finally {
      // A connection whose statement failed for any reason but the database's answer (a
      // timeout, a lost connection) is not given back to the pool: it is closed.
      const answered = failure === undefined || (failure as { code?: string }).code !== undefined; // SQLSTATE, or ours
      c.release(answered ? undefined : (failure as Error));
    }
  }

  private async applyMeta(c: pg.PoolClient, o: MetaOp, changed: Set<string>): Promise<void> {
    const must = async (sql: string, params: unknown[], what: string): Promise<void> => {
      if ((await c.query(sql, params)).rowCount !== 1) throw exists(what);
    };
    switch (o.op) {
      case "putBasin":
        changed.add(JSON.stringify([o.meta.name]));
        return must(`INSERT INTO svc_basins (name, meta) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET meta = EXCLUDED.meta
                     WHERE svc_basins.meta::json->>'createdAt' = $3`, [o.meta.name, JSON.stringify(o.meta), o.meta.createdAt], `basin ${o.meta.name}`);
      case "deleteBasin":
        changed.add(JSON.stringify([o.name]));
        await c.query("DELETE FROM svc_basins WHERE name = $1", [o.name]);
        return;
      case "putStream":
        changed.add(JSON.stringify([o.meta.basin, o.meta.name]));
        return must(`INSERT INTO svc_streams (basin, name, id, deleted, meta) VALUES ($1, $2, $3, $4, $5)
                     ON CONFLICT (basin, name) DO UPDATE SET deleted = EXCLUDED.deleted, meta = EXCLUDED.meta WHERE svc_streams.id = EXCLUDED.id`,
        [o.meta.basin, o.meta.name, o.meta.id, o.meta.deletedAt !== null, JSON.stringify(o.meta)], `stream ${o.meta.name}`);
      case "deleteStream":
        changed.add(JSON.stringify([o.basin, o.name]));
        await c.query("DELETE FROM svc_streams WHERE basin = $1 AND name = $2", [o.basin, o.name]);
        return;
      case "putState":
        await c.query(`INSERT INTO svc_tails (id, next_seq, state) VALUES ($1, $2, $3)
                       ON CONFLICT (id) DO UPDATE SET next_seq = EXCLUDED.next_seq, state = EXCLUDED.state`, [o.id, o.state.nextSeq, JSON.stringify(o.state)]);
        return;
      case "deleteState":
        await c.query("DELETE FROM svc_batches WHERE id = $1", [o.id]);
        await c.query("DELETE FROM svc_tails WHERE id = $1", [o.id]);
        return;
      case "putToken":
        return must(`INSERT INTO svc_tokens (id, key_id, token) VALUES ($1, $2, $3)
                     ON CONFLICT (id) DO UPDATE SET token = EXCLUDED.token WHERE svc_tokens.key_id = EXCLUDED.key_id`,
        [o.token.id, o.token.keyId, JSON.stringify(o.token)], `access token ${JSON.stringify(o.token.id)}`);
      case "deleteToken":
        await c.query("DELETE FROM svc_tokens WHERE id = $1", [o.id]);
        return;
    }
  }

  appendBatch(id: number, batch: StoredBatch, state: StreamStateRecord): Promise<void> {
    if (this.closed) return Promise.reject(storageError(new Error("storage is closed")));
    let q = this.queues.get(id);
    if (!q) this.queues.set(id, (q = { pending: [], busy: false }));
    const queue = q;
    return new Promise((resolve, reject) => {
      queue.pending.push({ batch, data: encodeBatch(batch), state, resolve, reject });
      if (!queue.busy) void this.drain(id, queue);
    });
  }

  /** One statement in flight per stream; whatever queued meanwhile forms the next group. */
  private async drain(id: number, q: Queue): Promise<void> {
    q.busy = true;
    while (q.pending.length > 0) {
      let n = 0;
      let size = 0;
      while (n < q.pending.length && n < MAX_GROUP_BATCHES && (n === 0 || size + q.pending[n]!.data.length <= MAX_GROUP_BYTES)) size += q.pending[n++]!.data.length;
      const group = q.pending.splice(0, n);
      try {
        await this.writeGroup(id, group);
        for (const p of group) p.resolve();
      } catch (e) {
        // Everything queued behind a failed group was sequenced after it: none may land.
        for (const p of [...group, ...q.pending.splice(0)]) p.reject(e);
      }
    }
    q.busy = false;
    if (this.queues.get(id) === q && q.pending.length === 0) this.queues.delete(id);
  }

  private async writeGroup(id: number, group: Pending[]): Promise<void> {
    const first = group[0]!.batch.firstSeq;
    for (let i = 1; i < group.length; i++) {
      if (group[i]!.batch.firstSeq !== group[i - 1]!.state.nextSeq) throw storageError(new Error(`batches at ${group[i - 1]!.batch.firstSeq} and ${group[i]!.batch.firstSeq} are not contiguous`));
    }
    const state = group[group.length - 1]!.state;
    const stateJson = JSON.stringify(state);
    // One VALUES row per batch; buffers travel as binary parameters (an array would be hex text).
    const values = group.map((_, i) => `($${5 + 4 * i}::bigint, $${6 + 4 * i}::bigint, $${7 + 4 * i}::bigint, $${8 + 4 * i}::bytea)`).join(", ");
    let res;
    try {
      res = await this.pool.query<{ ok: number }>(
        `WITH t AS (
           UPDATE svc_tails SET next_seq = $3, state = $4
           WHERE id = $1 AND next_seq = $2 AND EXISTS (SELECT 1 FROM svc_streams WHERE id = $1 AND NOT deleted)
           RETURNING id),
         b AS (
           INSERT INTO svc_batches (id, first_seq, end_seq, last_ts, data)
           SELECT $1, f, e, l, d FROM (VALUES ${values}) AS v(f, e, l, d)
           WHERE EXISTS (SELECT 1 FROM t)
           RETURNING 1)
         SELECT (SELECT count(*) FROM t)::int AS ok, (SELECT count(*) FROM b)::int AS rows`,
        [id, first, state.nextSeq, stateJson, ...group.flatMap((p) => [p.batch.firstSeq, p.batch.firstSeq + p.batch.records.length, p.batch.lastTimestamp, p.data])],
      );
    } catch (e) {
      throw storageError(e);
    }
    if (res.rows[0]!.ok === 1) {
      this.announce(id, `t${id}`);
      return;
    }
    const { rows } = await this.pool.query<{ deleted: boolean | null }>("SELECT (SELECT deleted FROM svc_streams WHERE id = $1) AS deleted", [id]).catch((e: unknown) => { throw storageError(e); });
    if (rows[0]?.deleted !== false) throw new SvcError({ code: "stream_deletion_pending", origin: "server", status: 409, message: "the stream is being deleted" });
    throw conflict(first);
  }

  /**
   * Tells the other nodes about a committed tail, after the commit and outside it: PostgreSQL
   * serialises the commits of notifying transactions (a database-wide lock held through the
   * WAL flush), which in the append statement allowed one append commit per fsync. Here one
   * statement at a time carries the latest state of every stream moved meanwhile, committed
   * without waiting for the flush (a lost notification is covered by the poll).
   */
  private announce(id: number, payload: string): void {
    this.announcements.set(id, payload);
    if (this.announcing || this.closed) return;
    this.announcing = true;
    void (async () => {
      while (this.announcements.size > 0 && !this.closed) {
        const payloads = [...this.announcements.values()];
        this.announcements.clear();
        await this.pool.query(
          `SELECT set_config('synchronous_commit', 'off', true), (SELECT count(pg_notify('${CHANNEL}', p)) FROM unnest($1::text[]) AS u(p))`,
          [payloads],
        ).catch((e: unknown) => this.log(`notification failed (other nodes will poll): ${(e as Error).message}`));
      }
      this.announcing = false;
    })();
  }

  /**
   * Every loaded stream's (or one basin's) metadata and state, in one query through the pool. It was two
   * blocking round trips per loaded stream: with 300 loaded, the node stopped for ~250 ms every
   * five seconds.
   */
  private refreshMeta(l: StorageListener, basin?: string): void {
    const loaded = l.loadedStreams().filter((x) => basin === undefined || x.basin === basin);
    if (loaded.length === 0) return;
    this.pool.query<{ basin: string; name: string; meta: string; state: string | null }>(
      `SELECT s.basin, s.name, s.meta, t.state FROM svc_streams s LEFT JOIN svc_tails t ON t.id = s.id
       WHERE (s.basin, s.name) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
      [loaded.map((x) => x.basin), loaded.map((x) => x.name)],
    ).then(
      ({ rows }) => {
        const found = new Map(rows.map((r) => [JSON.stringify([r.basin, r.name]), r]));
        for (const x of loaded) {
          const r = found.get(JSON.stringify([x.basin, x.name]));
          const meta = r ? JSON.parse(r.meta) as StreamMeta : undefined;
          l.refreshed(x.id, x.basin, x.name, meta, r?.state && meta?.id === x.id ? JSON.parse(r.state) as StreamStateRecord : undefined);
        }
      },
      (e: unknown) => this.log(`metadata refresh failed (retried in ${this.pollMs * 5} ms): ${(e as Error).message}`),
    );
  }

  readBatches(id: number, fromSeq: number, maxBatches: number): StoredBatch[] {
    return this.sync.query(
      "SELECT first_seq, data FROM svc_batches WHERE id = $1 AND end_seq > $2 AND first_seq >= coalesce((SELECT max(first_seq) FROM svc_batches WHERE id = $1 AND first_seq <= $2), 0) ORDER BY first_seq LIMIT $3",
      [id, fromSeq, maxBatches],
    ).map((r) => decodeBatch(num(r[0]), bytes(r[1])));
  }

  /** Through the pool (the event loop is not held) and only each value's header. */
  async batchHeads(id: number, fromSeq: number, maxBatches: number): Promise<BatchHead[]> {
    const { rows } = await this.pool.query<{ first_seq: string; end_seq: string; head: Buffer }>(
      `SELECT first_seq, end_seq, substring(data from 1 for ${BATCH_HEAD_BYTES}) AS head FROM svc_batches
       WHERE id = $1 AND end_seq > $2 ORDER BY first_seq LIMIT $3`,
      [id, fromSeq, maxBatches],
    ).catch((e: unknown) => { throw storageError(e); });
    return rows.map((r) => ({ firstSeq: num(r.first_seq), count: num(r.end_seq) - num(r.first_seq), arrival: batchHeader(r.head).arrival }));
  }

  findTimestamp(id: number, timestamp: number): number | undefined {
    const row = this.one("SELECT first_seq FROM svc_batches WHERE id = $1 AND last_ts >= $2 ORDER BY last_ts, first_seq LIMIT 1", [id, timestamp]);
    return row && num(row[0]);
  }

  lastBatch(id: number): StoredBatch | undefined {
    const row = this.one("SELECT first_seq, data FROM svc_batches WHERE id = $1 ORDER BY first_seq DESC LIMIT 1", [id]);
    return row && decodeBatch(num(row[0]), bytes(row[1]));
  }

  async deleteBatchesBelow(id: number, seq: number, max: number): Promise<number> {
    const res = await this.pool.query(
      "DELETE FROM svc_batches WHERE id = $1 AND first_seq IN (SELECT first_seq FROM svc_batches WHERE id = $1 AND end_seq <= $2 ORDER BY first_seq LIMIT $3)",
      [id, Math.min(seq, Number.MAX_SAFE_INTEGER), max],
    ).catch((e: unknown) => { throw storageError(e); });
    return res.rowCount ?? 0;
  }

  // ---- changes made by other nodes ----

  watch(listener: StorageListener): void {
    this.listener = listener;
    void this.listen();
    this.pollTimer = setInterval(() => this.poll(), this.pollMs);
    this.pollTimer.unref();
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    const c = new pg.Client({ ...clientOptions(this.config), application_name: "svc lite listener" });
    let dropped = false;
    const drop = (why: string): void => {
      if (dropped) return;
      dropped = true;
      if (this.listenClient === c) this.listenClient = undefined;
      void c.end().catch(() => {});
      if (this.closed) return;
      if (!this.listenLost) this.log(`database notifications lost (${why}); polling every ${this.pollMs} ms and reconnecting every second`);
      this.listenLost = true;
      setTimeout(() => void this.listen(), 1000).unref();
    };
    c.on("notification", (n) => this.onNotify(n.payload ?? ""));
    c.on("error", (e) => drop(e.message));
    c.on("end", () => drop("connection closed"));
    try {
      await c.connect();
      await c.query(`LISTEN ${CHANNEL}`);
      if (this.closed) { await c.end(); return; }
      this.listenClient = c;
      if (this.listenLost) this.log("database notifications back");
      this.listenLost = false;
      this.poll(); // whatever moved while not listening
    } catch (e) {
      drop((e as Error).message);
    }
  }

  /**
   * The periodic sweep runs on one node at a time: the node whose listening connection holds
   * SWEEP_LOCK, a session-level advisory lock that PostgreSQL releases when that connection
   * ends (the node stopped, died, or lost the connection). Every node asks each period; the
   * first to ask after the holder is gone takes over. Without a listening connection a node
   * does not lead (its lock, if it had one, went with the connection).
   */
  async leadsSweep(): Promise<boolean> {
    const c = this.listenClient;
    if (!c || this.closed) return false;
    if (this.sweepHolder === c) return true;
    try {
      const { rows } = await c.query<{ got: boolean }>("SELECT pg_try_advisory_lock($1) AS got", [SWEEP_LOCK]);
      if (rows[0]?.got !== true || this.listenClient !== c) return false;
    } catch {
      return false; // the connection is failing: its own handlers reconnect
    }
    this.sweepHolder = c;
    this.log("this node now runs the periodic sweep (one node at a time: trims, retention, deletions)");
    return true;
  }

  private onNotify(payload: string): void {
    const l = this.listener;
    if (!l) return;
    try {
      if (payload.startsWith("t")) {
        // Only a hint: any role that can connect may NOTIFY. What moved is read from the table.
        const colon = payload.indexOf(":");
        this.hinted.add(num(payload.slice(1, colon < 0 ? undefined : colon)));
        if (!this.hintScheduled) {
          this.hintScheduled = true;
          setImmediate(() => {
            this.hintScheduled = false;
            const ids = [...this.hinted];
            this.hinted.clear();
            this.readTails(l, ids);
          });
        }
      } else if (payload.startsWith("m")) {
        const [basin, name] = JSON.parse(payload.slice(1)) as [string, string?];
        // One stream: its two reads now. A whole basin: all its loaded streams in one query.
        if (name === undefined) this.refreshMeta(l, basin);
        else l.metaChanged(basin, name);
      }
    } catch (e) {
      this.log(`ignored a malformed notification: ${(e as Error).message}`);
    }
  }

  /** The bounded fallback: every loaded stream's stored tail (and every 5th time its metadata). */
  private poll(): void {
    const l = this.listener;
    if (!l || this.closed) return;
    if (++this.polls % 5 === 0) this.refreshMeta(l);
    this.readTails(l, l.loadedIds());
  }

  /** The stored states of streams `ids` (those loaded here), told to the listener. */
  private readTails(l: StorageListener, ids: number[]): void {
    const loaded = new Set(l.loadedIds());
    ids = ids.filter((id) => loaded.has(id));
    if (ids.length === 0) return;
    this.pool.query<{ id: string; state: string }>("SELECT id, state FROM svc_tails WHERE id = ANY($1::bigint[])", [ids]).then(
      ({ rows }) => {
        this.pollFailing = false;
        for (const r of rows) l.tailMoved(num(r.id), JSON.parse(r.state));
      },
      (e: unknown) => {
        if (!this.pollFailing) this.log(`tail poll failed (retried every ${this.pollMs} ms): ${(e as Error).message}`);
        this.pollFailing = true;
      },
    );
  }

  // Metrics are not kept on PostgreSQL yet (main.ts turns them off): each node would
  // overwrite the others' counts in the shared rows.
  readMetrics(): [string, unknown][] {
    return [];
  }

  writeMetrics(): Promise<void> {
    return Promise.reject(new SvcError({ code: "not_implemented", origin: "server", status: 501, message: "metrics are not kept on PostgreSQL storage" }));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    await Promise.all([...this.queues.values()].map((q) => new Promise<void>((res) => {
      const check = (): void => { if (!q.busy) res(); else setTimeout(check, 5); };
      check();
    })));
    await this.listenClient?.end().catch(() => {});
    await this.pool.end().catch(() => {});
    await this.sync.close();
  }
}

/**
 * A node acknowledges an append once its commit returns; on a server with fsync (or
 * full_page_writes) off, that commit survives a crash of the process but not of its host. Both
 * are the server's settings, not ours to change: the node says so at start, once.
 */
async function warnIfNotDurable(client: pg.Client, where: string, log: (m: string) => void): Promise<void> {
  const { rows } = await client.query<{ name: string }>("SELECT name FROM pg_settings WHERE name IN ('fsync', 'full_page_writes') AND setting = 'off' ORDER BY name");
  if (rows.length === 0) return;
  const off = rows.map((r) => `${r.name}=off`).join(" and ");
  log(`warning: PostgreSQL at ${where} runs with ${off}: a crash of its host can lose or corrupt records this node has acknowledged`);
}

