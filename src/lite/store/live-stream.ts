/**
 * What the rest of lite sees of one stream it serves: a local stream (local-stream.ts, on a
 * backend this process alone writes) or a shared one (shared-stream.ts, on a database that
 * several nodes write and that sequences every append). Both keep the same promises:
 *
 * - acks are sent only once the append is durable, in the order the appends were submitted;
 * - after an append of a chain (one append session) is refused, nothing later of that chain
 *   is applied;
 * - `tailNow` reflects every append acknowledged before it was called, through any node;
 * - reads may serve any record below `known.nextSeq` without asking anyone again;
 * - followers see only durable records, in order, without gaps, every record of each batch
 *   whatever it trims (live-fanout.ts); a read never returns a hole (stored-reader.ts);
 * - a trim is recorded at once, and carried out by the sweep later (janitor.ts): until then its
 *   records are still read; from then on nothing below the removal mark is.
 *
 * A stream is typed by the kind of its backend (storage/answers.ts): a local stream's reads
 * answer at once, a shared one's with a promise; what serves either takes `LiveStream`.
 */

import { type SvcError, serverError } from "../../errors.js";
import type { AppendAck, AppendInput, StreamPosition } from "../../types.js";
import type { StreamMeter } from "../metrics/meter.js";
import type { Answer, BackendKind } from "../storage/answers.js";
import type { StreamMeta, StreamStateRecord } from "../storage/types.js";
import type { LiveSubscriber } from "./live-fanout.js";
import type { ReaderSource, StoredReader } from "./stored-reader.js";
import type { WentBack } from "./went-back.js";

/** The appends of one append session: after one is refused, the rest are not applied. */
export interface Chain {
  failed: boolean;
}

export interface Submitted {
  /** False when the append was refused at once (nothing after it should be submitted). */
  accepted: boolean;
  /** Settles once the append is durable, or with its refusal (after everything before it). */
  ack: Promise<AppendAck>;
}

export interface LiveStream<K extends BackendKind = BackendKind> extends ReaderSource<K> {
  meta: StreamMeta;
  readonly id: number;
  readonly deleting: boolean;
  /** Metrics counters of this stream (a scratch object when metrics are off). */
  meter: StreamMeter;
  /**
   * True when `known` is the stream's state itself (this process is its only writer): a trim
   * is known here the moment it is durable. False where other nodes append and trim too.
   */
  readonly exact: boolean;
  /** Set when the database was found to lack records this node knew of (went-back.ts). */
  readonly lost?: WentBack | undefined;
  submit(input: AppendInput, chain?: Chain): Submitted;
  append(input: AppendInput): Promise<AppendAck>;
  /** Resolves once every append submitted so far has settled. */
  whenIdle(): Promise<void>;
  /** The tail now: every append acknowledged before this call, through any node (§7.1). */
  tailNow(): Answer<K, StreamPosition>;
  findTimestamp(timestamp: number): Answer<K, number | undefined>;
  /** What one read sees of the stored records (stored-reader.ts); `confirmed`: the tail the database gave it (-1: none). */
  reader(confirmed: number): StoredReader<K>;
  /**
   * Adds a reader waiting at the tail to the stream's fan-out (live-fanout.ts): false when it is
   * behind what was published (it reads storage first); throws when the stream cannot be
   * followed (being deleted, storage failed).
   */
  follow(s: LiveSubscriber): boolean;
  unfollow(s: LiveSubscriber): void;
  /** The sweep carried out a removal up to `seq` (its mark is durable): reads skip below it from now on. */
  noteRemoved(seq: number): void;
  /** Seals the stream: no more appends; followers end with 409. */
  markDeleting(): void;
  /** Ends every follower (server shutdown). */
  closeFollowers(error: SvcError): void;
}

/**
 * An append refused before it was sequenced: its chain stops there, and the refusal is
 * answered once everything submitted before it has settled (acks and refusals keep order).
 */
export function refused(stream: Pick<LiveStream, "whenIdle">, error: unknown, chain?: Chain): Submitted {
  if (chain) chain.failed = true;
  return {
    accepted: false,
    ack: stream.whenIdle().then(() => {
      throw error;
    }),
  };
}

/**
 * What an append of a chain gets once an earlier one of it was refused (422 on the wire; the
 * client's own `not_applied` is another thing: inputs it never sent after a failure).
 */
export function earlierRefused(): SvcError {
  return serverError("invalid", "not applied: an earlier append of this session was refused");
}

/** A stream's state before its first append. */
export function initialState(createdMs: number): StreamStateRecord {
  return { nextSeq: 0, lastTimestamp: 0, fencingToken: "", trimPoint: 0, lastArrival: createdMs };
}

export function nowIso(ms = Date.now()): string {
  return new Date(ms).toISOString();
}

type StreamCheck = "ok" | "reload" | "gone";

/** What the store tells the kind of its streams (local-streams.ts, shared-streams.ts). */
export interface StreamHooks {
  /** A trim became durable: background work will be due (janitor.ts). */
  onTrim: () => void;
  /** The time arrivals are stamped and ages judged by (Store.now). */
  now: () => number;
  loaded: () => Iterable<LiveStream>;
  forget: (s: LiveStream) => void;
  log: (msg: string) => void;
  /**
   * A shared stream's stored tail is below what this node acknowledged or served (`from`):
   * the database lost records from `to` on (a failover to a standby that lacked them).
   */
  wentBack?: (s: LiveStream, from: number, to: number) => void;
}

/** How live streams are made and kept fresh, by kind of backend. */
export interface StreamKind<K extends BackendKind = BackendKind> {
  /** A live stream for `meta` (read from storage under the metadata lock). */
  load(meta: StreamMeta): Answer<K, LiveStream<K>>;
  /**
   * Whether a loaded stream may serve this request: "ok"; "reload" (it must be loaded again,
   * under the lock); "gone" (its name now names nothing, or another stream).
   */
  check(s: LiveStream): Answer<K, StreamCheck>;
  /** Waits before a reload (a local stream broken by a failed write: until its writes settle). */
  beforeReload(s: LiveStream): Promise<void>;
  close(): Promise<void>;
}
