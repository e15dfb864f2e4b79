/**
 * The append session lane of the appender (appender.ts; protocol.md §6.5, §6.7;
 * docs/design/reliability.md, "Retry decisions"): inputs are pipelined over one exchange as the appender hands them
 * over (already validated, within its budget of unacknowledged bytes), and acks are paired
 * with inputs first-in first-out.
 * Each exchange is an AppendConnection (append-connection.ts: its in-flight inputs, the ack
 * idle bound, the reader of the server's frames); this module queues, (re)connects, and
 * decides what each ack or failure means for the inputs.
 *
 * Failure handling never re-sends what may have been applied:
 * - `server_draining` (terminal 503): the server acked everything it accepted, so the unacked
 *   inputs were never processed; they are re-sent, in order, on a new session.
 * - Reconnect advice (the A flag on an ack): no new inputs go on this session; it is
 *   half-closed, and a new session is used only after every in-flight ack has arrived.
 * - Any other terminal error fails its input; the inputs after it were never applied.
 * - A lost connection or a missing ack (none within `ackTimeoutMs` while inputs are in
 *   flight) leaves the in-flight inputs' outcome unknown: they fail with `sideEffects: true`
 *   and the session stops.
 * Connecting is retried (transport/retry.ts back-off) only while nothing is in flight: up to
 * `retries` times, or for `reconnectBudgetMs` after the server itself asked us to reconnect.
 * A session that never started fails its inputs as "nothing was appended".
 */
import { clientError, SvcError } from "../errors.js";
import { sleep } from "../sleep.js";
import { backoffDelay } from "../transport/retry.js";
import type { AppendAck, AppendInput } from "../types.js";
import type { Compression } from "../wire/framing.js";
import { frameEncoded } from "../wire/message-frame.js";
import { encodeAppendInput } from "../wire/proto.js";
import { AppendConnection, type ConnectionEvents, type Entry } from "./append-connection.js";
import { notApplied } from "./not-applied.js";
import type { OpenExchange } from "./session-frames.js";

export interface AppendSessionOptions {
  /** Compression for our frames; the server's is negotiated by the opener's Accept-Encoding. */
  compression?: Compression;
  /** Fail in-flight inputs as "outcome unknown" when no ack arrives for this long. @default the client's (30000) */
  ackTimeoutMs?: number;
  /** Connect retries while nothing is in flight. @default the client's (2) */
  retries?: number;
  /** How long to keep reconnecting after the server asked us to (draining). @default 30000 */
  reconnectBudgetMs?: number;
  /** Told about every reconnection, for logs. */
  onReconnect?: (reason: string) => void;
}

export class AppendSession {
  private readonly queue: Entry[] = [];
  private conn: AppendConnection | undefined;
  private failure: SvcError | undefined;
  private pumping = false;
  private closing = false;
  private lastEnd = -1;
  private wake: (() => void) | undefined;
  /** The server asked us to reconnect (reconnect advice or draining). */
  private advised = false;
  private readonly opts: Required<Omit<AppendSessionOptions, "onReconnect">> &
    Pick<AppendSessionOptions, "onReconnect">;

  /** What the connections report, handled below (append-connection.ts reads the frames). */
  private readonly events: ConnectionEvents = {
    ack: (conn, ack) => this.onAck(conn, ack),
    advised: () => this.onAdvised(),
    terminal: (conn, err) => this.onTerminal(conn, err),
    lost: (conn, err) => this.onLost(conn, err),
    ended: () => this.onEnded(),
  };

  constructor(
    private readonly open: OpenExchange,
    opts: AppendSessionOptions = {},
  ) {
    this.opts = {
      compression: opts.compression ?? "none",
      ackTimeoutMs: opts.ackTimeoutMs ?? 30_000,
      retries: opts.retries ?? 2,
      reconnectBudgetMs: opts.reconnectBudgetMs ?? 30_000,
      onReconnect: opts.onReconnect,
    };
  }

  /**
   * Queues one input (the appender validated it and bounds what is unacknowledged); resolves
   * with its ack. Inputs go out in the order they are sent, each as soon as a session can take it.
   */
  send(input: AppendInput): Promise<AppendAck> {
    return new Promise<AppendAck>((resolve, reject) => {
      if (this.failure) return reject(notApplied(this.failure));
      if (this.closing) return reject(clientError("usage", "the append session is closed"));
      const frame = frameEncoded((reserve) => encodeAppendInput(input, reserve), this.opts.compression);
      frame.catch(() => undefined); // awaited by the pump, which fails the session with it
      this.queue.push({ frame, records: input.records.length, matchSeqNum: input.matchSeqNum, resolve, reject });
      this.poke();
      void this.pump();
    });
  }

  /** Waits for every submitted input to be acknowledged, then ends the session cleanly. */
  async close(): Promise<void> {
    this.closing = true;
    while (!this.failure && (this.queue.length > 0 || (this.conn && this.conn.inflight.length > 0)))
      await this.changed();
    const conn = this.conn;
    if (conn && !conn.closed) {
      conn.draining = true;
      conn.exchange.end();
      await conn.done;
    }
    if (this.failure) throw this.failure;
  }

  /** Abandons the session: in-flight inputs end with an unknown outcome. */
  abort(reason = "the append session was aborted"): void {
    this.fail(clientError("interrupted", reason));
    this.conn?.exchange.close();
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.queue.length > 0 && !this.failure) {
        const conn = await this.usableConnection();
        if (!conn) break;
        const entry = this.queue[0]!;
        let frame: Uint8Array;
        try {
          frame = await entry.frame;
        } catch (e) {
          const err = e instanceof SvcError ? e : clientError("too_large", String(e), e);
          this.queue.shift();
          entry.reject(err);
          this.fail(err);
          break;
        }
        // Encoding may have taken a turn (compression): the connection or the queue may have moved on.
        if (this.failure || conn.draining || conn.closed || this.queue[0] !== entry) continue;
        this.queue.shift();
        conn.inflight.push(entry);
        // An ack is now owed: bound the wait for it (acks re-arm the bound while more are owed).
        if (conn.inflight.length === 1) conn.armAckTimer();
        await conn.exchange.write(frame).catch(() => undefined); // the reader reports the failure
      }
    } finally {
      this.pumping = false;
    }
  }

  /** The current connection if it may take inputs; otherwise waits for it and opens a new one. */
  private async usableConnection(): Promise<AppendConnection | undefined> {
    const cur = this.conn;
    if (cur && !cur.draining && !cur.closed) return cur;
    if (cur && !cur.closed) await cur.done;
    const advised = this.advised;
    this.advised = false;
    const started = Date.now();
    for (let attempt = 0; !this.failure; attempt++) {
      try {
        const exchange = await this.open({ method: "POST", duplex: true });
        if (attempt > 0 || cur) this.opts.onReconnect?.(cur ? "new session" : "connected after retries");
        this.conn = new AppendConnection(exchange, this.opts.ackTimeoutMs, this.events);
        return this.conn;
      } catch (e) {
        // Nothing was written on a session that did not start: any retryable failure is safe.
        const err = e instanceof SvcError ? e : clientError("connect_failed", String(e), e);
        const mayRetry =
          err.retryable &&
          (attempt < this.opts.retries || (advised && Date.now() - started < this.opts.reconnectBudgetMs));
        if (!mayRetry) {
          this.fail(notStarted(err), false);
          return undefined;
        }
        const delay = backoffDelay(attempt, undefined, err.retryAfterMs);
        this.opts.onReconnect?.(`${err.message}; retrying in ${delay} ms`);
        await sleep(delay);
      }
    }
    return undefined;
  }

  /** The server advised reconnecting on an ack (that connection takes no more inputs): later inputs go on a new one. */
  private onAdvised(): void {
    this.advised = true;
    this.opts.onReconnect?.("the server advised reconnecting");
  }

  /** A connection's server side ended: whatever waits may go on, queued inputs go on a new one. */
  private onEnded(): void {
    this.poke();
    if (this.queue.length > 0 && !this.failure) void this.pump();
  }

  private onAck(conn: AppendConnection, ack: AppendAck): void {
    const entry = conn.inflight.shift();
    if (!entry) throw clientError("protocol", "the server sent an ack with no input in flight");
    const n = entry.records;
    const problem =
      ack.end.seqNum - ack.start.seqNum !== n
        ? `covers ${ack.end.seqNum - ack.start.seqNum} records, the input had ${n}`
        : ack.end.seqNum <= this.lastEnd
          ? `end ${ack.end.seqNum} does not advance past ${this.lastEnd}`
          : ack.tail.seqNum < ack.end.seqNum
            ? `tail ${ack.tail.seqNum} is before end ${ack.end.seqNum}`
            : entry.matchSeqNum !== undefined && ack.start.seqNum !== entry.matchSeqNum
              ? `start ${ack.start.seqNum} differs from match_seq_num ${entry.matchSeqNum}`
              : undefined;
    if (problem) {
      const err = clientError("protocol", `invalid ack from the server: ${problem}`);
      entry.reject(err);
      throw err;
    }
    this.lastEnd = ack.end.seqNum;
    entry.resolve(ack);
    this.poke();
  }

  private onTerminal(conn: AppendConnection, err: SvcError): void {
    conn.draining = true;
    if (err.code === "server_draining") {
      // Every accepted input was acked before this frame: the rest were never processed.
      this.resendOnNewConnection(conn);
      this.opts.onReconnect?.("the server is draining");
      return;
    }
    const first = conn.inflight.shift();
    if (first) first.reject(err);
    this.fail(err, true, conn);
  }

  /** Puts the inputs in flight on `conn` back at the head of the queue, for the next connection. */
  protected resendOnNewConnection(conn: AppendConnection): void {
    this.queue.unshift(...conn.inflight.splice(0));
    this.advised = true;
  }

  /** A connection was lost: what was in flight on it may or may not have been appended, and is never re-sent. */
  protected onLost(conn: AppendConnection, err: SvcError): void {
    conn.draining = true;
    if (conn.inflight.length === 0) return; // an idle connection went away: reconnect on demand
    const unknown = new SvcError({
      code: err.code,
      message: `${err.message}; ${conn.inflight.length} ${conn.inflight.length === 1 ? "batch" : "batches"} may or may not have been appended`,
      origin: err.origin,
      status: err.status,
      retryable: false,
      sideEffects: true,
      cause: err,
    });
    for (const e of conn.inflight.splice(0)) e.reject(unknown);
    this.fail(unknown, true, conn);
  }

  /** Stops the session: everything not yet acked fails (`not_applied` unless said otherwise). */
  private fail(err: SvcError, applied = true, conn = this.conn): void {
    if (!this.failure) this.failure = err;
    const rest = [...(conn?.inflight.splice(0) ?? []), ...this.queue.splice(0)];
    for (const e of rest) e.reject(applied ? notApplied(err) : err);
    this.poke();
  }

  private poke(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  private changed(): Promise<void> {
    return new Promise((resolve) => {
      const prev = this.wake;
      this.wake = () => {
        prev?.();
        resolve();
      };
    });
  }
}

/** The session never started, so nothing was written: same code, but no side effects. */
function notStarted(cause: SvcError): SvcError {
  if (!cause.sideEffects) return cause;
  return new SvcError({
    code: cause.code,
    message: `${cause.message}; the append session did not start, nothing was appended`,
    origin: cause.origin,
    status: cause.status,
    retryable: cause.retryable,
    sideEffects: false,
    cause,
  });
}
