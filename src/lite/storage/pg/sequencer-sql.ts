/**
 * The database as sequencer: `svc_append`, one PL/pgSQL function call per group of appends
 * to one stream (storage/pg/log.ts calls it; store/shared-stream.ts plans the group).
 *
 * It locks the stream's tail row (FOR UPDATE: appends through every node queue there, the
 * way Message DB takes a per-stream lock), refuses a stream that is gone or being deleted,
 * then takes the group's appends in order against what is stored:
 *
 *   - an append of a chain that already had one refused is skipped (`x`);
 *   - its fencing token, when it carries one, must be the stored token (else `f<token>`);
 *   - its match_seq_num, when it carries one, must be the stored next seq num (else `s<n>`);
 *   - otherwise it lands at the stored next seq num; its timestamps never go below the
 *     stored last timestamp (the batch's `ts_floor`, applied on read: sequencing.ts); its
 *     fence and trim commands apply in record order (a trim never past its own position + 1;
 *     trim points only move forward).
 *
 * All landed batches go in with one INSERT and the tail row is updated once, in the same
 * transaction as the lock: a group commits whole, with one WAL flush. An unconditional append
 * never fails because another node appended first; a conditional one fails only when its
 * condition is false against what is stored, and the answer carries the stored value.
 */
const sequencerSql = (create: string, settings: string): string => `
${create} FUNCTION svc_append(
  p_id bigint, p_arrival bigint, p_counts bigint[], p_chains int[], p_match bigint[], p_fence text[],
  p_last_ts bigint[], p_planned bigint[], p_cmd_batch int[], p_cmd_index bigint[], p_cmd_fence text[],
  p_cmd_trim bigint[], p_data bytea[],
  OUT o_refused text, OUT o_firsts bigint[], OUT o_floors bigint[], OUT o_errs text[],
  OUT o_next_seq bigint, OUT o_last_ts bigint, OUT o_fencing_token text, OUT o_trim_point bigint,
  OUT o_last_arrival bigint)
LANGUAGE plpgsql ${settings} AS $fn$
DECLARE
  n int := coalesce(pg_catalog.array_length(p_counts, 1), 0);
  m int := coalesce(pg_catalog.array_length(p_cmd_batch, 1), 0);
  c int := 1;
  failed int[] := '{}';
  ins_first bigint[] := '{}'; ins_end bigint[] := '{}'; ins_last bigint[] := '{}';
  ins_floor bigint[] := '{}'; ins_planned bigint[] := '{}'; ins_data bytea[] := '{}';
BEGIN
  SELECT t.next_seq, t.last_ts, t.fencing_token, t.trim_point, t.last_arrival
    INTO o_next_seq, o_last_ts, o_fencing_token, o_trim_point, o_last_arrival
    FROM svc_tails t WHERE t.id = p_id FOR UPDATE;
  IF NOT FOUND THEN o_refused := 'gone'; RETURN; END IF;
  IF NOT EXISTS (SELECT 1 FROM svc_streams s WHERE s.id = p_id AND NOT s.deleted) THEN
    o_refused := 'deleting'; RETURN;
  END IF;
  o_firsts := pg_catalog.array_fill(NULL::bigint, ARRAY[n]);
  o_floors := pg_catalog.array_fill(NULL::bigint, ARRAY[n]);
  o_errs := pg_catalog.array_fill(NULL::text, ARRAY[n]);
  FOR k IN 1 .. n LOOP
    IF p_chains[k] = ANY (failed) THEN
      o_errs[k] := 'x';
    ELSIF p_fence[k] IS NOT NULL AND p_fence[k] <> o_fencing_token THEN
      o_errs[k] := 'f' || o_fencing_token; failed := failed || p_chains[k];
    ELSIF p_match[k] IS NOT NULL AND p_match[k] <> o_next_seq THEN
      o_errs[k] := 's' || o_next_seq; failed := failed || p_chains[k];
    ELSE
      o_firsts[k] := o_next_seq;
      o_floors[k] := o_last_ts;
      WHILE c <= m AND p_cmd_batch[c] < k LOOP c := c + 1; END LOOP;
      WHILE c <= m AND p_cmd_batch[c] = k LOOP
        IF p_cmd_fence[c] IS NOT NULL THEN
          o_fencing_token := p_cmd_fence[c];
        ELSE
          o_trim_point := greatest(o_trim_point, least(p_cmd_trim[c], o_next_seq + p_cmd_index[c] + 1));
        END IF;
        c := c + 1;
      END LOOP;
      ins_first := ins_first || o_next_seq;
      ins_end := ins_end || (o_next_seq + p_counts[k]);
      ins_last := ins_last || greatest(o_last_ts, p_last_ts[k]);
      ins_floor := ins_floor || o_last_ts;
      ins_planned := ins_planned || p_planned[k];
      ins_data := ins_data || p_data[k];
      o_next_seq := o_next_seq + p_counts[k];
      o_last_ts := greatest(o_last_ts, p_last_ts[k]);
    END IF;
  END LOOP;
  IF coalesce(pg_catalog.array_length(ins_first, 1), 0) > 0 THEN
    o_last_arrival := greatest(o_last_arrival, p_arrival);
    INSERT INTO svc_batches (id, first_seq, end_seq, last_ts, ts_floor, planned_seq, data)
      SELECT p_id, f, e, l, fl, pl, d FROM unnest(ins_first, ins_end, ins_last, ins_floor, ins_planned, ins_data) AS u(f, e, l, fl, pl, d);
    UPDATE svc_tails SET next_seq = o_next_seq, last_ts = o_last_ts, fencing_token = o_fencing_token,
      trim_point = o_trim_point, last_arrival = o_last_arrival WHERE id = p_id;
  END IF;
END
$fn$;
`;

/**
 * Migration 2: the stream state as columns (the sequencer reads and writes them), batches
 * with the floor of their timestamps and the seq num they were planned at, basins with an id
 * (a basin created again is another one), a revision and a deleted flag, streams with a
 * revision: every change of metadata is conditional on them. Batch values are kept out of line
 * and uncompressed (EXTERNAL): compressing every batch as it is inserted cost the database CPU
 * on the append path; an operator who wants them compressed may set EXTENDED.
 */
export const MIGRATION_2 = `
ALTER TABLE svc_tails ADD COLUMN last_ts bigint, ADD COLUMN fencing_token text, ADD COLUMN trim_point bigint, ADD COLUMN last_arrival bigint;
UPDATE svc_tails SET last_ts = (state::json->>'lastTimestamp')::bigint, fencing_token = state::json->>'fencingToken',
  trim_point = (state::json->>'trimPoint')::bigint, last_arrival = (state::json->>'lastArrival')::bigint;
ALTER TABLE svc_tails ALTER COLUMN last_ts SET NOT NULL, ALTER COLUMN fencing_token SET NOT NULL,
  ALTER COLUMN trim_point SET NOT NULL, ALTER COLUMN last_arrival SET NOT NULL, DROP COLUMN state;
ALTER TABLE svc_batches ADD COLUMN ts_floor bigint NOT NULL DEFAULT 0, ADD COLUMN planned_seq bigint;
ALTER TABLE svc_batches ALTER COLUMN data SET STORAGE EXTERNAL;
ALTER TABLE svc_basins ADD COLUMN id bigint, ADD COLUMN rev bigint NOT NULL DEFAULT 0, ADD COLUMN deleted boolean NOT NULL DEFAULT false;
UPDATE svc_basins SET id = pg_catalog.nextval('svc_stream_ids'), deleted = (meta::json->>'deletedAt') IS NOT NULL;
ALTER TABLE svc_basins ALTER COLUMN id SET NOT NULL;
ALTER TABLE svc_streams ADD COLUMN rev bigint NOT NULL DEFAULT 0;
${sequencerSql("CREATE", "")}
`;

/**
 * Migration 6: the function as before, with the built-ins it calls qualified and the search path
 * of the session that migrates (session.ts: lite's schema, pg_catalog, pg_temp) fixed on it, so
 * that whatever a caller's path, no object another role planted is resolved inside it.
 */
export const MIGRATION_6 = sequencerSql("CREATE OR REPLACE", "SET search_path FROM CURRENT");
