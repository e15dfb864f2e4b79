/**
 * One connection of the append session lane (append-session.ts): its exchange, the inputs
 * written on it and not yet acknowledged, whether it may take more, and the reader of the
 * server's frames under the ack idle bound (protocol.md §6.5). What each message means for the
 * inputs (an ack paired and checked, a terminal error, a lost connection, reconnect advice) is
 * the session's to decide: the connection reports it through `ConnectionEvents`.
 */
import { clientError, SvcError } from "../errors.js";
import type { SessionExchange } from "../transport/session-exchange.js";
import { type AppendAck, MAX_TIMER_MS } from "../types.js";
import { decodeAppendAck } from "../wire/proto.js";
import { serverMessages } from "./session-frames.js";

/**
 * An input as the session keeps it: its frame, encoded when it was handed over (so its
 * records are garbage at once, not while it waits for a write or an ack), and what its ack is
 * checked against. A re-send after `server_draining` writes the same frame again.
 */
export interface Entry {
  frame: Promise<Uint8Array>;
  records: number;
  matchSeqNum: number | undefined;
  resolve: (ack: AppendAck) => void;
  reject: (err: SvcError) => void;
}

/** What a connection tells its session, each with the connection it concerns. */
export interface ConnectionEvents {
  /** An ack arrived, for the oldest input in flight; throwing loses the connection with that error. */
  ack(conn: AppendConnection, ack: AppendAck): void;
  /** The ack carried reconnect advice: the connection takes no more inputs and our side is ended. */
  advised(conn: AppendConnection): void;
  /** A terminal frame ended the session. */
  terminal(conn: AppendConnection, err: SvcError): void;
  /** The connection failed, no ack came within the bound, or it ended with inputs in flight. */
  lost(conn: AppendConnection, err: SvcError): void;
  /** The server's side ended (whatever the reason) and ours was ended too. */
  ended(conn: AppendConnection): void;
}

export class AppendConnection {
  /** Inputs written and not yet acknowledged, oldest first: acks pair with them in order. */
  readonly inflight: Entry[] = [];
  /** No more inputs may be written (reconnect advised, draining or closing). */
  draining = false;
  closed = false;
  /** Settles once the server's side has ended and the session was told (`ended`). */
  readonly done: Promise<void>;
  private timer: NodeJS.Timeout | undefined;
  private timedOut = false;

  /** Starts reading the server's frames at once; `ackTimeoutMs` bounds each wait for an ack. */
  constructor(
    readonly exchange: SessionExchange,
    private readonly ackTimeoutMs: number,
    private readonly events: ConnectionEvents,
  ) {
    this.done = this.read().finally(() => {
      // The server ended its side: end ours, so the stream (and a draining server) can close.
      this.exchange.end();
      this.closed = true;
      this.draining = true;
      events.ended(this);
    });
  }

  /** (Re)starts the ack idle bound; called when an input is written to an idle connection. */
  armAckTimer(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(
      () => {
        this.timedOut = true;
        this.exchange.abandon();
      },
      Math.min(MAX_TIMER_MS, this.ackTimeoutMs),
    );
    this.timer.unref();
  }

  private async read(): Promise<void> {
    const events = this.events;
    try {
      if (this.inflight.length > 0) this.armAckTimer();
      for await (const msg of serverMessages(this.exchange)) {
        if (msg.kind === "terminal") return events.terminal(this, msg.error);
        events.ack(this, decodeAppendAck(msg.payload));
        if (msg.reconnect && !this.draining) {
          this.draining = true;
          this.exchange.end();
          events.advised(this);
        }
        if (this.inflight.length > 0) this.armAckTimer();
        else clearTimeout(this.timer);
      }
    } catch (e) {
      const err = this.timedOut
        ? clientError("client_timeout", `no ack arrived within ${this.ackTimeoutMs} ms`)
        : e instanceof SvcError
          ? e
          : clientError("network", String(e), e);
      return events.lost(this, err);
    } finally {
      clearTimeout(this.timer);
    }
    if (this.inflight.length > 0) {
      events.lost(
        this,
        this.timedOut
          ? clientError("client_timeout", "no ack arrived in time")
          : clientError("network", "the session ended before every input was acknowledged"),
      );
    }
  }
}
