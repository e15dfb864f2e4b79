/**
 * The catalog on PostgreSQL: basins, streams and access tokens, shared by every node.
 *
 * Reads of one basin, stream or token go through a bounded cache (cache.ts): a change made
 * through another node is seen here within `ttlMs`, usually at once (its notification drops
 * the entry); a change made through this node, at once. Listings always ask the database.
 *
 * Every change is one transaction whose condition is checked against what is stored, never a
 * record read earlier written back whole (seams.ts lists them). Deleting a stream or a basin
 * locks the tails of the streams it seals, as every append does (sequencer-sql.ts): an
 * append either commits before the deletion or is refused after it.
 */
import type { CatalogChange, ClusterHint, SharedCatalog } from "../seams.js";
import type { BasinMeta, StoredToken, StreamMeta } from "../types.js";
import { TtlCache } from "./cache.js";
import { type Db, num, type Tx } from "./db.js";
import { CHANNEL } from "./listener.js";

interface MetaRow {
  id: string;
  rev: string;
  meta: string;
}

function basinOf(r: MetaRow): BasinMeta {
  return { ...(JSON.parse(r.meta) as BasinMeta), id: num(r.id), rev: num(r.rev) };
}

function streamOf(r: MetaRow): StreamMeta {
  return { ...(JSON.parse(r.meta) as StreamMeta), id: num(r.id), rev: num(r.rev) };
}

/** The JSON of a meta without the columns kept beside it. */
function json(meta: BasinMeta | StreamMeta): string {
  const { rev: _rev, ...rest } = meta;
  return JSON.stringify(rest);
}

/** The SET of sealing a basin or stream at `$at` (a parameter's placeholder). */
const seal = (at: string): string =>
  `deleted = true, rev = rev + 1, meta = pg_catalog.jsonb_set(meta::jsonb, '{deletedAt}', pg_catalog.to_jsonb(${at}::text))::text`;

export class PgCatalog implements SharedCatalog {
  private readonly basins: TtlCache<BasinMeta>;
  private readonly streams: TtlCache<StreamMeta>;
  private readonly tokens: TtlCache<StoredToken>;

  constructor(
    private readonly db: Db,
    ttlMs: number,
  ) {
    this.basins = new TtlCache(ttlMs);
    this.streams = new TtlCache(ttlMs);
    this.tokens = new TtlCache(ttlMs);
  }

  /** Drops what a hint names (a notification, or a change of this node). */
  /** See CatalogReads.tokenChanges. */
  tokenChanges = 0;

  forget(h: ClusterHint): void {
    if (h.kind === "tokens") {
      this.tokenChanges++;
      return this.tokens.invalidate();
    }
    if (h.kind !== "meta") return;
    if (h.streamId !== undefined) this.streams.invalidateWhere((s) => s.id === h.streamId);
    if (h.basinId !== undefined) this.basins.invalidateWhere((b) => b.id === h.basinId);
    if (h.streamId !== undefined || h.basinId !== undefined) {
      if (!h.streams) return;
      if (h.basin !== undefined) return this.streams.invalidatePrefix(`${h.basin}\u0000`);
    } else this.basins.invalidate();
    this.streams.invalidate();
  }

  /** The name of basin `id` (a hint names only its id): cached, else read; undefined if unknown. */
  async basinName(id: number): Promise<string | undefined> {
    const cached = this.basins.find((b) => b.id === id);
    if (cached) return cached.name;
    const rows = await this.db.read<{ name: string }>("SELECT name FROM svc_basins WHERE id = $1", [id]);
    return rows[0]?.name;
  }

  getBasin(name: string) {
    return this.basins.get(name, async () => {
      const rows = await this.db.read<MetaRow>("SELECT id, rev, meta FROM svc_basins WHERE name = $1", [name]);
      return rows[0] && basinOf(rows[0]);
    });
  }

  async listBasins(prefix: string, after: string, limit: number): Promise<BasinMeta[]> {
    const rows = await this.db.read<MetaRow>(
      "SELECT id, rev, meta FROM svc_basins WHERE pg_catalog.starts_with(name, $1) AND name > $2 ORDER BY name LIMIT $3",
      [prefix, after, limit],
    );
    return rows.map(basinOf);
  }

  getStream(basin: string, name: string) {
    return this.streams.get(`${basin}\u0000${name}`, async () => {
      const rows = await this.db.read<MetaRow>("SELECT id, rev, meta FROM svc_streams WHERE basin = $1 AND name = $2", [
        basin,
        name,
      ]);
      return rows[0] && streamOf(rows[0]);
    });
  }

  async listStreams(basin: string, prefix: string, after: string, limit: number): Promise<StreamMeta[]> {
    const rows = await this.db.read<MetaRow>(
      "SELECT id, rev, meta FROM svc_streams WHERE basin = $1 AND pg_catalog.starts_with(name, $2) AND name > $3 ORDER BY name LIMIT $4",
      [basin, prefix, after, limit],
    );
    return rows.map(streamOf);
  }

  async getToken(id: string): Promise<StoredToken | undefined> {
    const rows = await this.db.read<{ token: string }>("SELECT token FROM svc_tokens WHERE id = $1", [id]);
    return rows[0] && (JSON.parse(rows[0].token) as StoredToken);
  }

  getTokenByKey(keyId: string) {
    return this.tokens.get(keyId, async () => {
      const rows = await this.db.read<{ token: string }>("SELECT token FROM svc_tokens WHERE key_id = $1", [keyId]);
      return rows[0] && (JSON.parse(rows[0].token) as StoredToken);
    });
  }

  async listTokens(prefix: string, after: string, limit: number): Promise<StoredToken[]> {
    const rows = await this.db.read<{ token: string }>(
      "SELECT token FROM svc_tokens WHERE pg_catalog.starts_with(id, $1) AND id > $2 ORDER BY id LIMIT $3",
      [prefix, after, limit],
    );
    return rows.map((r) => JSON.parse(r.token) as StoredToken);
  }

  async newId(): Promise<number> {
    const rows = await this.db.read<{ id: string }>("SELECT pg_catalog.nextval('svc_stream_ids') AS id");
    return num(rows[0]!.id);
  }

  /**
   * One change, conditional on what is stored; then the other nodes are told (after the
   * commit: a notification inside the transaction would make every notifying commit of the
   * database wait for the one before, and a hint lost to a crash in between is made up for by
   * the nodes' bounded caches and polls). A stream creation is one statement, with no
   * transaction around it.
   */
  async change(c: CatalogChange): Promise<boolean> {
    const hint = hintOf(c);
    let ok: boolean;
    try {
      ok = c.op === "createStream" ? await this.createStream(c) : await this.db.tx((tx) => apply(tx, c));
    } finally {
      // Whatever the outcome, what this node holds of it may be stale now.
      this.forget(hint);
    }
    // A new stream's id is in no node's cache (only found values are cached): nobody to tell.
    if (ok && c.op !== "createStream")
      await this.db.write("SELECT pg_catalog.pg_notify($1, $2)", [CHANNEL, payloadOf(hint)]).catch(() => undefined);
    return ok;
  }

  /** The stream and its tail, if its basin is live (held so until the commit) and the name free. */
  private async createStream(c: Extract<CatalogChange, { op: "createStream" }>): Promise<boolean> {
    const s = c.state;
    const res = await this.db.write<{ id: string }>(
      `WITH b AS (SELECT 1 FROM svc_basins WHERE name = $1 AND NOT deleted FOR SHARE),
            s AS (INSERT INTO svc_streams (basin, name, id, deleted, rev, meta)
                  SELECT $1, $2, $3, false, 0, $4 FROM b ON CONFLICT (basin, name) DO NOTHING RETURNING id)
       INSERT INTO svc_tails (id, next_seq, last_ts, fencing_token, trim_point, last_arrival)
       SELECT id, $5, $6, $7, $8, $9 FROM s RETURNING id`,
      [
        c.meta.basin,
        c.meta.name,
        c.meta.id,
        json(c.meta),
        s.nextSeq,
        s.lastTimestamp,
        s.fencingToken,
        s.trimPoint,
        s.lastArrival,
      ],
    );
    return res.rowCount === 1;
  }
}

/** What a change makes stale, by ids (and, for this node's own caches, the basin's name). */
function hintOf(c: CatalogChange): ClusterHint {
  const basin = (id: number | undefined): ClusterHint => (id ? { kind: "meta", basinId: id } : { kind: "meta" });
  switch (c.op) {
    case "putToken":
    case "deleteToken":
      return { kind: "tokens" };
    case "createBasin":
    case "updateBasin":
      return basin(c.meta.id);
    case "removeBasin":
      return basin(c.id);
    case "deleteBasin":
      return { kind: "meta", basinId: c.id, streams: true, basin: c.name };
    case "createStream":
    case "updateStream":
      return { kind: "meta", streamId: c.meta.id };
    case "deleteStream":
    case "removeStream":
      return { kind: "meta", streamId: c.id };
  }
}

/**
 * The notification of a hint (cluster.ts reads it back): ids only, never names, since any role
 * that may connect can listen. `k` tokens; `ms<id>` a stream; `mb<id>` a basin; `mB<id>` a
 * basin and all its streams; `m` every basin and stream; `t<ids>` tails.
 */
function payloadOf(h: ClusterHint): string {
  if (h.kind === "tokens") return "k";
  if (h.kind === "meta") {
    if (h.streamId !== undefined) return `ms${h.streamId}`;
    if (h.basinId !== undefined) return `${h.streams ? "mB" : "mb"}${h.basinId}`;
    return "m";
  }
  if (h.kind === "lost") return "t*"; // never sent: each node notices its own loss of contact
  return `t${(h.ids ?? []).join(",")}`;
}

async function one(tx: Tx, sql: string, params: unknown[]): Promise<boolean> {
  return (await tx.query(sql, params)).rowCount === 1;
}

async function apply(tx: Tx, c: CatalogChange): Promise<boolean> {
  switch (c.op) {
    case "createBasin":
      return one(
        tx,
        "INSERT INTO svc_basins (name, id, rev, deleted, meta) VALUES ($1, $2, 0, false, $3) ON CONFLICT (name) DO NOTHING",
        [c.meta.name, c.meta.id ?? 0, json(c.meta)],
      );
    case "updateBasin":
      return one(
        tx,
        "UPDATE svc_basins SET meta = $3, rev = rev + 1 WHERE name = $1 AND id = $2 AND rev = $4 AND NOT deleted",
        [c.meta.name, c.meta.id ?? 0, json(c.meta), c.rev],
      );
    case "deleteBasin": {
      if (
        !(await one(tx, `UPDATE svc_basins SET ${seal("$3")} WHERE name = $1 AND id = $2 AND NOT deleted`, [
          c.name,
          c.id,
          c.at,
        ]))
      )
        return false;
      await tx.query(
        "SELECT 1 FROM svc_tails WHERE id IN (SELECT id FROM svc_streams WHERE basin = $1 AND NOT deleted) ORDER BY id FOR UPDATE",
        [c.name],
      );
      await tx.query(`UPDATE svc_streams SET ${seal("$2")} WHERE basin = $1 AND NOT deleted`, [c.name, c.at]);
      return true;
    }
    case "removeBasin":
      return one(
        tx,
        "DELETE FROM svc_basins WHERE name = $1 AND id = $2 AND deleted AND NOT EXISTS (SELECT 1 FROM svc_streams WHERE basin = $1)",
        [c.name, c.id],
      );
    case "createStream":
      throw new Error("a stream creation is one statement of its own (PgCatalog.createStream)");
    case "updateStream":
      return one(
        tx,
        "UPDATE svc_streams SET meta = $4, rev = rev + 1 WHERE basin = $1 AND name = $2 AND id = $3 AND rev = $5 AND NOT deleted",
        [c.meta.basin, c.meta.name, c.meta.id, json(c.meta), c.rev],
      );
    case "deleteStream": {
      // The tail's lock orders this against every append (sequencer-sql.ts).
      const tail = c.ifTail
        ? await tx.query("SELECT 1 FROM svc_tails WHERE id = $1 AND next_seq = $2 AND last_arrival = $3 FOR UPDATE", [
            c.id,
            c.ifTail.nextSeq,
            c.ifTail.lastArrival,
          ])
        : await tx.query("SELECT 1 FROM svc_tails WHERE id = $1 FOR UPDATE", [c.id]);
      if (c.ifTail && tail.rowCount !== 1) return false;
      // With ifRev, a PATCH committed first (the row lock orders them) leaves the stream alone.
      return one(
        tx,
        `UPDATE svc_streams SET ${seal("$4")} WHERE basin = $1 AND name = $2 AND id = $3 AND NOT deleted
         AND ($5::bigint IS NULL OR rev = $5)`,
        [c.basin, c.name, c.id, c.at, c.ifRev ?? null],
      );
    }
    case "removeStream":
      await tx.query("DELETE FROM svc_batches WHERE id = $1", [c.id]);
      await tx.query("DELETE FROM svc_tails WHERE id = $1", [c.id]);
      await tx.query("DELETE FROM svc_tail_regressions WHERE id = $1", [c.id]);
      return one(tx, "DELETE FROM svc_streams WHERE basin = $1 AND name = $2 AND id = $3", [c.basin, c.name, c.id]);
    case "putToken":
      return one(tx, "INSERT INTO svc_tokens (id, key_id, token) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", [
        c.token.id,
        c.token.keyId,
        JSON.stringify(c.token),
      ]);
    case "deleteToken":
      return one(tx, "DELETE FROM svc_tokens WHERE id = $1 AND key_id = $2", [c.id, c.keyId]);
  }
}
