/**
 * Metrics on PostgreSQL: every node adds what it counted, the database sums (seams.ts
 * `MetricsStore`; metrics/recorder.ts gives the numbers their meaning).
 *
 *   svc_metric_counts   (t, scope, name) → n        added with INSERT … ON CONFLICT … n + n
 *   svc_metric_totals   name → n                    likewise
 *   svc_metric_stored   (basin, stream) → id, bytes, dropped, t   stream '' is the basin's row
 *   svc_metric_samples  (basin, stream, t) → bytes  the row's value after its last change in minute t
 *
 * Stored bytes change under the basin's row lock (taken in name order, after the counts and
 * totals, so two nodes never wait on each other in a circle): the stream rows are read,
 * changed and written back with the basin's row moved by what they moved, and both sampled.
 * A stream row remembers the stream's id, and a dropped stream stays as a marker (bytes 0)
 * until pruned: a node's late change for a stream that was dropped, or for an older stream of
 * the same name, changes nothing.
 */
import type { MetricCount, MetricsDelta, MetricsStore, StoredChange, StoredSample } from "../seams.js";
import { type Db, num, type Tx } from "./db.js";

export const MIGRATION_3 = `
CREATE TABLE svc_metric_counts (t bigint NOT NULL, scope text COLLATE "C" NOT NULL, name text COLLATE "C" NOT NULL,
  n bigint NOT NULL, PRIMARY KEY (t, scope, name));
CREATE INDEX svc_metric_counts_scope ON svc_metric_counts (scope, t);
CREATE TABLE svc_metric_totals (name text COLLATE "C" PRIMARY KEY, n bigint NOT NULL);
CREATE TABLE svc_metric_stored (basin text COLLATE "C" NOT NULL, stream text COLLATE "C" NOT NULL, id bigint NOT NULL,
  bytes bigint NOT NULL, dropped boolean NOT NULL, t bigint NOT NULL, PRIMARY KEY (basin, stream));
CREATE TABLE svc_metric_samples (basin text COLLATE "C" NOT NULL, stream text COLLATE "C" NOT NULL, t bigint NOT NULL,
  bytes bigint NOT NULL, PRIMARY KEY (basin, stream, t));
CREATE INDEX svc_metric_samples_t ON svc_metric_samples (t);
`;

const ADD_COUNTS = `INSERT INTO svc_metric_counts AS m (t, scope, name, n)
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[]) AS d(t, scope, name, n) ORDER BY t, scope, name
  ON CONFLICT (t, scope, name) DO UPDATE SET n = m.n + EXCLUDED.n`;
const ADD_TOTALS = `INSERT INTO svc_metric_totals AS m (name, n)
  SELECT * FROM unnest($1::text[], $2::bigint[]) AS d(name, n) ORDER BY name
  ON CONFLICT (name) DO UPDATE SET n = m.n + EXCLUDED.n`;
const LOCK_BASINS = `INSERT INTO svc_metric_stored (basin, stream, id, bytes, dropped, t)
  SELECT b, '', 0, 0, false, 0 FROM unnest($1::text[]) AS b ORDER BY b ON CONFLICT (basin, stream) DO NOTHING`;
const LOCKED_BASINS =
  "SELECT basin, bytes FROM svc_metric_stored WHERE stream = '' AND basin = ANY($1::text[]) ORDER BY basin FOR UPDATE";
const READ_STREAMS = `SELECT m.basin, m.stream, m.id, m.bytes, m.dropped FROM svc_metric_stored m
  JOIN unnest($1::text[], $2::text[]) AS d(basin, stream) ON m.basin = d.basin AND m.stream = d.stream`;
const WRITE_ROWS = `INSERT INTO svc_metric_stored AS m (basin, stream, id, bytes, dropped, t)
  SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::boolean[], $6::bigint[])
  ON CONFLICT (basin, stream) DO UPDATE SET id = EXCLUDED.id, bytes = EXCLUDED.bytes, dropped = EXCLUDED.dropped, t = EXCLUDED.t`;
const WRITE_SAMPLES = `INSERT INTO svc_metric_samples AS m (basin, stream, t, bytes)
  SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[])
  ON CONFLICT (basin, stream, t) DO UPDATE SET bytes = EXCLUDED.bytes`;

/** A stored row as read and as it will be written. */
interface Row {
  basin: string;
  stream: string;
  id: number;
  bytes: number;
  dropped: boolean;
  t: number;
}

const rowKey = (basin: string, stream: string): string => `${basin}/${stream}`;

/** What a row holds toward its basin's bytes. */
const held = (r: Row | undefined): number => (r === undefined || r.dropped ? 0 : r.bytes);

/**
 * `c` applied to the row as stored (or absent): a change for the stored stream adds; one for
 * an older stream, or for a dropped one, changes nothing; one for a newer stream replaces
 * what an older stream of the name left.
 */
function applied(r: Row | undefined, c: StoredChange): Row | undefined {
  if (r === undefined || r.id < c.id)
    return { basin: c.basin, stream: c.stream, id: c.id, bytes: c.n, dropped: false, t: c.t };
  if (r.id > c.id || r.dropped) return undefined;
  return { ...r, bytes: r.bytes + c.n, t: Math.max(r.t, c.t) };
}

export class PgMetrics implements MetricsStore<"shared"> {
  constructor(private readonly db: Db) {}

  async add(d: MetricsDelta): Promise<void> {
    const counts = [...sumBy(d.counts, (c) => `${c.t}/${c.scope}/${c.name}`).values()];
    const totals = [
      ...sumBy(
        d.totals.map(([name, n]) => ({ name, n })),
        (x) => x.name,
      ).values(),
    ];
    await this.db.tx(async (tx) => {
      if (counts.length > 0)
        await tx.query(ADD_COUNTS, [
          counts.map((c) => c.t),
          counts.map((c) => c.scope),
          counts.map((c) => c.name),
          counts.map((c) => c.n),
        ]);
      if (totals.length > 0) await tx.query(ADD_TOTALS, [totals.map((x) => x.name), totals.map((x) => x.n)]);
      if (d.stored.length > 0) await this.changeStored(tx, d.stored);
      return true;
    });
    if (d.pruneBefore !== undefined) await this.prune(d.pruneBefore);
  }

  /** Old minutes go; a failure here changes nothing that was added (the next prune retries). */
  private async prune(before: number): Promise<void> {
    try {
      await this.db.write("DELETE FROM svc_metric_counts WHERE t < $1", [before]);
      await this.db.write("DELETE FROM svc_metric_samples WHERE t < $1", [before]);
      await this.db.write("DELETE FROM svc_metric_stored WHERE dropped AND t < $1", [before]);
    } catch {
      // kept until the next prune
    }
  }

  private async changeStored(tx: Tx, changes: StoredChange[]): Promise<void> {
    const basins = await lockBasins(tx, [...new Set(changes.map((c) => c.basin))]);
    const rows = await readRows(tx, changes);
    const out = new Map<string, Row>();
    // Changes of one name in id order: a newer stream's changes come after an older one's.
    for (const c of [...changes].sort((a, b) => a.id - b.id)) {
      const key = rowKey(c.basin, c.stream);
      const before = out.get(key) ?? rows.get(key);
      const after = applied(before, c);
      if (after === undefined) continue;
      out.set(key, after);
      const b = basins.get(c.basin)!;
      b.bytes += held(after) - held(before);
      b.t = Math.max(b.t, c.t);
    }
    await writeRows(tx, [...out.values(), ...[...basins.values()].filter((b) => b.t > 0)]);
  }

  async drop(t: number, basin: string, stream: string, id: number): Promise<void> {
    await this.db.tx(async (tx) => {
      const b = (await lockBasins(tx, [basin])).get(basin)!;
      const r = (await readRows(tx, [{ basin, stream }])).get(rowKey(basin, stream));
      if (r !== undefined && (r.id > id || (r.id === id && r.dropped))) return false;
      // The marker stops changes still on their way from other nodes; only bytes held are sampled.
      const marker: Row = { basin, stream, id, bytes: 0, dropped: true, t };
      if (r === undefined || r.dropped) return writeRows(tx, [marker], []).then(() => true);
      b.bytes -= r.bytes;
      b.t = t;
      await writeRows(tx, [marker, b]);
      return true;
    });
  }

  async counts(from: number, to: number, scope?: string): Promise<MetricCount[]> {
    const rows =
      scope === undefined
        ? await this.db.read<{ t: string; scope: string; name: string; n: string }>(
            "SELECT t, scope, name, n FROM svc_metric_counts WHERE t BETWEEN $1 AND $2",
            [from, to],
          )
        : await this.db.read<{ t: string; scope: string; name: string; n: string }>(
            "SELECT t, scope, name, n FROM svc_metric_counts WHERE scope = $3 AND t BETWEEN $1 AND $2",
            [from, to, scope],
          );
    return rows.map((r) => ({ t: num(r.t), scope: r.scope, name: r.name, n: num(r.n) }));
  }

  async samples(basin: string, stream: string, from: number, to: number): Promise<StoredSample[]> {
    const rows = await this.db.read<{ t: string; bytes: string }>(
      "SELECT t, bytes FROM svc_metric_samples WHERE basin = $1 AND stream = $2 AND t BETWEEN $3 AND $4 ORDER BY t",
      [basin, stream, from, to],
    );
    return rows.map((r) => ({ t: num(r.t), bytes: num(r.bytes) }));
  }

  async stored(basin?: string, stream = ""): Promise<number> {
    const rows =
      basin === undefined
        ? await this.db.read<{ n: string | null }>("SELECT sum(bytes) AS n FROM svc_metric_stored WHERE stream = ''")
        : await this.db.read<{ n: string | null }>(
            "SELECT bytes AS n FROM svc_metric_stored WHERE basin = $1 AND stream = $2",
            [basin, stream],
          );
    return rows[0]?.n == null ? 0 : num(rows[0].n);
  }

  async totals(): Promise<[string, number][]> {
    const rows = await this.db.read<{ name: string; n: string }>("SELECT name, n FROM svc_metric_totals");
    return rows.map((r) => [r.name, num(r.n)]);
  }
}

function sumBy<T extends { n: number }>(items: T[], key: (t: T) => string): Map<string, T> {
  const out = new Map<string, T>();
  for (const it of items) {
    const k = key(it);
    const had = out.get(k);
    out.set(k, had ? { ...had, n: had.n + it.n } : { ...it });
  }
  return out;
}

/** Locks the basins' rows (made when missing) in name order; their values as rows to change. */
async function lockBasins(tx: Tx, basins: string[]): Promise<Map<string, Row>> {
  await tx.query(LOCK_BASINS, [basins]);
  const { rows } = await tx.query<{ basin: string; bytes: string }>(LOCKED_BASINS, [basins]);
  return new Map(
    rows.map((r) => [r.basin, { basin: r.basin, stream: "", id: 0, bytes: num(r.bytes), dropped: false, t: 0 }]),
  );
}

async function readRows(tx: Tx, keys: { basin: string; stream: string }[]): Promise<Map<string, Row>> {
  const { rows } = await tx.query<{ basin: string; stream: string; id: string; bytes: string; dropped: boolean }>(
    READ_STREAMS,
    [keys.map((k) => k.basin), keys.map((k) => k.stream)],
  );
  return new Map(
    rows.map((r) => [
      rowKey(r.basin, r.stream),
      { basin: r.basin, stream: r.stream, id: num(r.id), bytes: num(r.bytes), dropped: r.dropped, t: 0 },
    ]),
  );
}

/** Writes the rows, and samples `sampled` at their minutes. */
async function writeRows(tx: Tx, rows: Row[], sampled = rows): Promise<void> {
  if (rows.length === 0) return;
  await tx.query(WRITE_ROWS, [
    rows.map((r) => r.basin),
    rows.map((r) => r.stream),
    rows.map((r) => r.id),
    rows.map((r) => r.bytes),
    rows.map((r) => r.dropped),
    rows.map((r) => r.t),
  ]);
  if (sampled.length === 0) return;
  await tx.query(WRITE_SAMPLES, [
    sampled.map((r) => r.basin),
    sampled.map((r) => r.stream),
    sampled.map((r) => r.t),
    sampled.map((r) => r.bytes),
  ]);
}
