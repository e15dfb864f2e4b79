/**
 * The shape of a recorded history (docs/design/reliability.md, "The shared harness"): one entry per
 * operation with its invoke and completion times (CLOCK_MONOTONIC in µs via process.hrtime, so
 * times compare across processes on one host), its inputs, and its outcome:
 *
 *   - `ok`: acknowledged / answered;
 *   - `fail`: definitely failed (no side effects: a 4xx, 412, or an input a session never applied);
 *   - `info`: indefinite (a reset, a timeout, a 5xx, a kill): it may or may not have taken effect.
 *
 * Records are identified by a canonical key (recordKey): a data record by its body, which
 * writers make unique; a command record by `fence:<token>` / `trim:<point>`. Everything is
 * plain JSON so a history can be written as JSONL, kept as an artifact and checked offline.
 */
export type Outcome = "ok" | "fail" | "info";

export interface OpBase {
  id: number;
  client: number;
  stream: string;
  invoke: number;
  /** Absent while pending; an `info` op's effect may land any time after invoke. */
  complete?: number;
  outcome?: Outcome;
  /** Error code for fail/info. */
  error?: string;
}

export interface AppendOp extends OpBase {
  kind: "append";
  via: "unary" | "session";
  records: string[];
  matchSeqNum?: number;
  fencingToken?: string;
  start?: number;
  end?: number;
  tail?: number;
  /** 412 seq_num_mismatch: the stream's next position reported by the server. */
  expectedSeqNum?: number;
  /** 412 fencing_token_mismatch: the token reported current by the server. */
  currentToken?: string;
}

export interface Observed {
  seq: number;
  key: string;
}

export interface ReadOp extends OpBase {
  kind: "read";
  from: number;
  /** Count limit asked for: a read that returns fewer records reached the tail. */
  limit: number;
  records: Observed[];
  /** The tail when known: from a 416, or when the read returned fewer records than its limit. */
  tail?: number;
}

export interface CheckTailOp extends OpBase {
  kind: "check-tail";
  tail?: number;
}

export interface SessionReadOp extends OpBase {
  kind: "read-session";
  from: number;
  /** Batches and heartbeats in arrival order. */
  events: ({ records: Observed[]; tail?: number } | { heartbeat: number | undefined })[];
}

export type Op = AppendOp | ReadOp | CheckTailOp | SessionReadOp;

export interface FinalStream {
  /** First stored seq num (the trim point as far as reads show). */
  first: number;
  tail: number;
  records: Observed[];
}

export interface History {
  /**
   * Free-form: seed, workflow, faults injected. One key changes the checks: `trims: "async"`
   * (several servers, each with its own view of the trim point) holds reads to the protocol's
   * §7.7 "trims are asynchronous": records below an acknowledged trim point may still be
   * returned for a while, so a read may start anywhere from its start position up to the trim
   * point, and each batch of a read session may begin past trimmed records the same way; a
   * short read (fewer records than asked) may end where the rest up to the tail was trimmed.
   * Without it a read starts exactly at max(start, trim point), as one server does. Inside
   * one response (a unary read's records, one batch of a session) records skip only to a
   * trim point either way.
   */
  meta: Record<string, unknown>;
  ops: Op[];
  /** Every stream read in full after the workload stopped and the server was quiet. */
  final: Record<string, FinalStream>;
}

export interface Violation {
  check: string;
  message: string;
  ops?: number[];
}

/** Whether the history holds reads to asynchronous trims (see History.meta). */
export function asyncTrims(h: History): boolean {
  return h.meta.trims === "async";
}
