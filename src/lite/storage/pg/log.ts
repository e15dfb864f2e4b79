/**
 * The record log on PostgreSQL: appends sequenced by the database (one `svc_append` call per
 * group, sequencer-sql.ts), and reads of batches and stream states through the read pool.
 */

import { SvcError } from "../../../errors.js";
import {
  BATCH_HEAD_BYTES,
  BATCH_INDEX_ENTRY_BYTES,
  batchHeader,
  decodeLanded,
  meteredOfValue,
} from "../batch-codec.js";
import type {
  AppendOutcome,
  GroupResult,
  PlannedAppend,
  Removed,
  SharedLog,
  StoredState,
  StreamRevision,
} from "../seams.js";
import type { BatchHead, StoredBatch, StreamStateRecord } from "../types.js";
import { bytes, type Db, num } from "./db.js";
import { notWritten, surelyRolledBack } from "./outcome.js";

interface AppendRow {
  o_refused: "gone" | "deleting" | null;
  o_firsts: (string | null)[] | null;
  o_floors: (string | null)[] | null;
  o_errs: (string | null)[] | null;
  o_next_seq: string;
  o_last_ts: string;
  o_fencing_token: string;
  o_trim_point: string;
  o_last_arrival: string;
}

interface StateRow {
  id: string;
  next_seq: string;
  last_ts: string;
  fencing_token: string;
  trim_point: string;
  removed_below: string;
  last_arrival: string;
  deleted: boolean | null;
  went_from: string | null;
  went_to: string | null;
}

/** The SQL of a group of `n` appends: buffers travel as binary parameters, one each. */
function appendSql(n: number): string {
  const data = Array.from({ length: n }, (_, i) => `$${13 + i}::bytea`).join(", ");
  return `SELECT * FROM svc_append($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, ARRAY[${data}]::bytea[])`;
}

function outcome(first: string | null, floor: string | null, err: string | null): AppendOutcome {
  if (err === null) return { ok: true, firstSeq: num(first), timestampFloor: num(floor) };
  if (err.startsWith("f")) return { ok: false, fencingToken: err.slice(1) };
  if (err.startsWith("s")) return { ok: false, nextSeq: num(err.slice(1)) };
  return { ok: false, skipped: true };
}

export class PgLog implements SharedLog {
  /** Told after every group that landed something, and every removal (cluster.ts announces it to the other nodes). */
  onChanged: (id: number) => void = () => {};

  constructor(private readonly db: Db) {}

  async append(id: number, group: PlannedAppend[], arrival: number, queuedSince?: number): Promise<GroupResult> {
    const cmd = {
      batch: [] as number[],
      index: [] as number[],
      fence: [] as (string | null)[],
      trim: [] as (number | null)[],
    };
    group.forEach((g, k) => {
      for (const c of g.commands) {
        cmd.batch.push(k + 1);
        cmd.index.push(c.index);
        cmd.fence.push(c.fence ?? null);
        cmd.trim.push(c.trim ?? null);
      }
    });
    let row: AppendRow;
    try {
      const res = await this.db.write<AppendRow>(
        appendSql(group.length),
        [
          id,
          arrival,
          group.map((g) => g.count),
          group.map((g) => g.chain),
          group.map((g) => g.matchSeqNum ?? null),
          group.map((g) => g.fencingToken ?? null),
          group.map((g) => g.lastTimestamp),
          group.map((g) => g.plannedFirst),
          cmd.batch,
          cmd.index,
          cmd.fence,
          cmd.trim,
          ...group.map((g) => g.data),
        ],
        queuedSince === undefined ? {} : { since: queuedSince },
      );
      row = res.rows[0]!;
    } catch (e) {
      // Surely rolled back: nothing was written. Else its outcome is unknown (it may have
      // committed before its answer was lost): shared-stream.ts tells the clients so.
      const cause = e instanceof SvcError ? e.cause : e;
      throw surelyRolledBack(cause) ? notWritten(cause) : e;
    }
    return this.result(id, row);
  }

  private result(id: number, r: AppendRow): GroupResult {
    const state: StreamStateRecord = {
      nextSeq: num(r.o_next_seq),
      lastTimestamp: num(r.o_last_ts),
      fencingToken: r.o_fencing_token,
      trimPoint: num(r.o_trim_point),
      lastArrival: num(r.o_last_arrival),
    };
    if (r.o_refused) return { refused: r.o_refused, outcomes: [], state };
    const outcomes = r.o_firsts!.map((first, k) => outcome(first, r.o_floors![k]!, r.o_errs![k]!));
    if (outcomes.some((o) => o.ok)) this.onChanged(id);
    return { outcomes, state };
  }

  async states(ids: number[]): Promise<Map<number, StoredState>> {
    const rows = await this.db.read<StateRow>(
      `SELECT t.id, t.next_seq, t.last_ts, t.fencing_token, t.trim_point, t.removed_below, t.last_arrival, s.deleted,
              g.went_from, g.went_to
       FROM svc_tails t LEFT JOIN svc_streams s ON s.id = t.id LEFT JOIN svc_tail_regressions g ON g.id = t.id
       WHERE t.id = ANY($1::bigint[])`,
      [ids],
    );
    return new Map(
      rows.map((r) => [
        num(r.id),
        {
          nextSeq: num(r.next_seq),
          lastTimestamp: num(r.last_ts),
          fencingToken: r.fencing_token,
          trimPoint: num(r.trim_point),
          removedBelow: num(r.removed_below),
          lastArrival: num(r.last_arrival),
          live: r.deleted === false,
          ...(r.went_from !== null && r.went_to !== null
            ? { wentBack: { from: num(r.went_from), to: num(r.went_to) } }
            : {}),
        },
      ]),
    );
  }

  async recordWentBack(id: number, from: number, to: number): Promise<void> {
    await this.db.write(
      `INSERT INTO svc_tail_regressions (id, went_from, went_to) VALUES ($1, $2, $3)
       ON CONFLICT (id) DO UPDATE SET went_from = greatest(svc_tail_regressions.went_from, excluded.went_from),
         went_to = least(svc_tail_regressions.went_to, excluded.went_to)`,
      [id, from, to],
    );
  }

  async readBatches(id: number, fromSeq: number, maxBatches: number): Promise<StoredBatch[]> {
    const rows = await this.db.read<{ first_seq: string; planned_seq: string | null; ts_floor: string; data: Buffer }>(
      `SELECT first_seq, planned_seq, ts_floor, data FROM svc_batches WHERE id = $1 AND end_seq > $2
       AND first_seq >= coalesce((SELECT max(first_seq) FROM svc_batches WHERE id = $1 AND first_seq <= $2), 0)
       ORDER BY first_seq LIMIT $3`,
      [id, fromSeq, maxBatches],
    );
    return rows.map((r) => {
      const first = num(r.first_seq);
      return decodeLanded(first, r.planned_seq === null ? first : num(r.planned_seq), num(r.ts_floor), bytes(r.data));
    });
  }

  async findTimestamp(id: number, timestamp: number): Promise<number | undefined> {
    const rows = await this.db.read<{ first_seq: string }>(
      "SELECT first_seq FROM svc_batches WHERE id = $1 AND last_ts >= $2 ORDER BY last_ts, first_seq LIMIT 1",
      [id, timestamp],
    );
    return rows[0] && num(rows[0].first_seq);
  }

  /** Only each value's header is read. */
  async batchHeads(id: number, fromSeq: number, maxBatches: number): Promise<BatchHead[]> {
    const rows = await this.db.read<{ first_seq: string; end_seq: string; head: Buffer }>(
      `SELECT first_seq, end_seq, substring(data from 1 for ${BATCH_HEAD_BYTES}) AS head FROM svc_batches
       WHERE id = $1 AND end_seq > $2 ORDER BY first_seq LIMIT $3`,
      [id, fromSeq, maxBatches],
    );
    return rows.map((r) => ({
      firstSeq: num(r.first_seq),
      count: num(r.end_seq) - num(r.first_seq),
      arrival: batchHeader(r.head).arrival,
    }));
  }

  /**
   * One statement. With `ifRev` its first step locks the stream's row as it was judged (FOR
   * SHARE: a PATCH committing meanwhile is waited for, and then the row no longer matches), so
   * the removal and the config it was decided on are one moment. Values are version 2 (all this
   * backend writes): their index gives the metered size without the records.
   */
  async deleteBatchesBelow(id: number, seq: number, max: number, ifRev?: StreamRevision): Promise<Removed> {
    const below = "SELECT first_seq FROM svc_batches WHERE id = $1 AND end_seq <= $2 ORDER BY first_seq LIMIT $3";
    const head = `substring(data from 1 for ${BATCH_HEAD_BYTES} + ${BATCH_INDEX_ENTRY_BYTES} * (end_seq - first_seq)::int)`;
    const params: unknown[] = [id, Math.min(seq, Number.MAX_SAFE_INTEGER), max];
    const judged = ifRev
      ? `judged AS (SELECT 1 FROM svc_streams WHERE id = $1 AND rev = $4 AND NOT deleted FOR SHARE),`
      : "";
    if (ifRev) params.push(ifRev.rev);
    // The removal raises the stream's removal mark in the same statement: a node learns it with
    // the stream's state and never serves a record below it again, from its cache or elsewhere.
    const when = ifRev ? "AND EXISTS (SELECT 1 FROM judged)" : "";
    const res = await this.db.write<{ head: Buffer | null }>(
      `WITH ${judged}
       gone AS (DELETE FROM svc_batches WHERE id = $1 ${when}
                AND first_seq IN (${below}) RETURNING end_seq, ${head} AS head),
       marked AS (UPDATE svc_tails SET removed_below = $2 WHERE id = $1 AND removed_below < $2 ${when} RETURNING 1)
       SELECT head FROM gone UNION ALL SELECT NULL FROM marked`,
      params,
    );
    const heads = res.rows.flatMap((r) => (r.head ? [r.head] : []));
    if (res.rows.length > 0) this.onChanged(id);
    return { batches: heads.length, metered: heads.reduce((n, h) => n + meteredOfValue(bytes(h)), 0) };
  }
}
