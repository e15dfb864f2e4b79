/**
 * The one appender of a stream (protocol.md §6.5, §8.1; docs/design/reliability.md, "Retry decisions"). Inputs are
 * appended in the order they are submitted, over one transport:
 * - `session` (the default): one append session, pipelined, acks in order (append-session.ts);
 * - `unary`: one unary append at a time (unary-appends.ts);
 * - `auto`: the session, unless the server has none (501 before anything was sent, or it does
 *   not speak HTTP/2: a proxy that passes HTTP/1.1 only); then every
 *   input goes, in order, as a unary append.
 *
 * `submit` is where the client checks an input, once, whatever the transport (the batch rules
 * of rules/records.ts: a bad input is refused before anything is sent), and where it applies
 * backpressure: it resolves once the input is taken, which is at once while the inputs taken
 * and not yet acknowledged hold less than `maxInflightBytes` (metered; 5 MiB), and otherwise
 * as acks make room, first come first served. Awaiting each `submit` therefore bounds memory
 * whatever the speed of the server; the ticket's `ack()` resolves with the input's ack.
 *
 * After a failure no later input is sent: each fails with `not_applied` (no side effects). An
 * input whose outcome is unknown (connection lost, no ack in time) fails with `sideEffects`
 * and is never re-sent.
 */
import { clientError, SvcError, WrongHttpError } from "../errors.js";
import { checkBatch as checkByRules } from "../rules/records.js";
import type { AppendAck, AppendInput } from "../types.js";
import { badInput } from "./bad-record.js";
import { notApplied } from "./not-applied.js";

export type AppendTransport = "session" | "unary" | "auto";

export interface AppenderOptions {
  /** session, unary, or auto (session, else unary when the server has no sessions). @default "session" */
  transport?: AppendTransport;
  /** Metered bytes of inputs taken and not yet acknowledged. @default 5242880 (5 MiB) */
  maxInflightBytes?: number;
}

/** A taken input: its size, and its ack to come. */
export interface AppendTicket {
  /** Metered bytes of the input. */
  readonly bytes: number;
  readonly records: number;
  /** Resolves with the input's ack; rejects as the input failed (see the header). */
  ack(): Promise<AppendAck>;
}

/** How inputs travel: the appender hands them over in order, validated, within its budget. */
export interface AppendLane {
  send(input: AppendInput): Promise<AppendAck>;
  /** Waits for what was sent, then ends cleanly; rejects with the lane's failure, if any. */
  close(): Promise<void>;
  /** Abandons what is in flight: its outcome stays unknown. */
  abort(reason: string): void;
}

/** The lanes a transport may need, made on first use. */
interface AppendLanes {
  session?: () => AppendLane;
  unary: () => AppendLane;
}

export const DEFAULT_MAX_INFLIGHT_BYTES = 5 * 1024 * 1024;

/** The client's one check of an input before it is sent; returns its metered size (refusals: bad-record.ts). */
export function checkAppendInput(input: AppendInput): number {
  return checkByRules(input, badInput);
}

interface Waiting {
  input: AppendInput;
  bytes: number;
  take: (ticket: AppendTicket) => void;
  refuse: (err: unknown) => void;
}

export class Appender {
  private readonly transport: AppendTransport;
  private readonly maxInflightBytes: number;
  private readonly waiting: Waiting[] = [];
  /** Metered bytes taken and not yet settled (acked or failed). */
  private unacked = 0;
  private unsettled = 0;
  private failure: SvcError | undefined;
  private closing = false;
  private session: AppendLane | undefined;
  private unary: AppendLane | undefined;
  /** `auto` found no sessions on the server: every input goes unary. */
  private fallen = false;
  private idle: (() => void) | undefined;
  private readonly roomWaiters: { bytes: number; wake: () => void }[] = [];

  /** @internal made by the client tree, not by its users */
  constructor(
    private readonly lanes: AppendLanes,
    opts: AppenderOptions = {},
  ) {
    this.transport = opts.transport ?? "session";
    this.maxInflightBytes = opts.maxInflightBytes ?? DEFAULT_MAX_INFLIGHT_BYTES;
    if (this.transport !== "unary" && !lanes.session)
      throw clientError("usage", "no session lane for an append session");
  }

  /** Metered bytes of the inputs taken and not yet acknowledged. */
  get pendingBytes(): number {
    return this.unacked;
  }

  /**
   * Checks `input` and resolves once it is taken (see the header); rejects at once when it is
   * invalid (nothing is sent), after a failure (`not_applied`) or once closing.
   */
  submit(input: AppendInput): Promise<AppendTicket> {
    if (this.failure) return Promise.reject(notApplied(this.failure));
    if (this.closing) return Promise.reject(clientError("usage", "the appender is closed"));
    let bytes: number;
    try {
      bytes = checkAppendInput(input);
    } catch (e) {
      return Promise.reject(e);
    }
    return new Promise((take, refuse) => {
      this.waiting.push({ input, bytes, take, refuse });
      this.admit();
    });
  }

  /**
   * Resolves once an input of `bytes` metered bytes would be taken at once (or the appender
   * failed): for a caller that stamps its records with the time they go out.
   */
  room(bytes: number): Promise<void> {
    if (this.failure || (this.waiting.length === 0 && this.fits(bytes))) return Promise.resolve();
    return new Promise((wake) => this.roomWaiters.push({ bytes, wake }));
  }

  /** Submits `input` and waits for its ack. */
  async append(input: AppendInput): Promise<AppendAck> {
    return (await this.submit(input)).ack();
  }

  /** Waits for every submitted input to be settled, then ends the transport; rejects with the first failure. */
  async close(): Promise<void> {
    this.closing = true;
    while (this.waiting.length > 0 || this.unsettled > 0) await new Promise<void>((r) => (this.idle = r));
    const closing = [this.session, this.unary]
      .filter((l) => l !== undefined)
      .map((l) =>
        l.close().catch((e: unknown) => {
          // The session of an `auto` appender that fell back to unary failed with this, nothing else.
          if (!(this.fallen && l === this.session && e instanceof SvcError && e.code === "not_implemented")) throw e;
        }),
      );
    await Promise.all(closing);
    if (this.failure) throw this.failure;
  }

  /** Abandons the appender: inputs in flight end with an unknown outcome, those waiting are not sent. */
  abort(reason = "the appender was aborted"): void {
    this.fail(clientError("interrupted", reason));
    this.session?.abort(reason);
    this.unary?.abort(reason);
  }

  private fits(bytes: number): boolean {
    return this.unacked === 0 || this.unacked + bytes <= this.maxInflightBytes;
  }

  /** Takes waiting inputs, in order, while the budget allows (one always, when nothing is unacked). */
  private admit(): void {
    while (this.waiting.length > 0 && !this.failure) {
      const { input, bytes, take } = this.waiting[0]!;
      if (!this.fits(bytes)) return;
      this.waiting.shift();
      this.unacked += bytes;
      this.unsettled++;
      // Nothing here keeps `input` once it is sent: its records go as soon as the lane encoded them.
      const acked = this.send(input);
      void acked.catch((e: unknown) => this.onFailure(e)).finally(() => this.settled(bytes));
      take({ bytes, records: input.records.length, ack: () => acked });
    }
  }

  private send(input: AppendInput): Promise<AppendAck> {
    if (this.transport === "unary" || this.fallen) return (this.unary ??= this.lanes.unary()).send(input);
    const sent = (this.session ??= this.lanes.session!()).send(input);
    if (this.transport !== "auto") return sent;
    return sent.catch((e: unknown) => {
      // No sessions here: the server answers 501, or does not speak HTTP/2 (a proxy that passes HTTP/1.1 only).
      if (!(e instanceof SvcError) || (e.code !== "not_implemented" && !(e instanceof WrongHttpError))) throw e;
      this.fallen = true;
      return (this.unary ??= this.lanes.unary()).send(input);
    });
  }

  private onFailure(e: unknown): void {
    const err = e instanceof SvcError ? e : clientError("network", String(e), e);
    if (err.code !== "not_applied") this.fail(err);
  }

  private settled(bytes: number): void {
    this.unacked -= bytes;
    this.unsettled--;
    this.admit();
    this.wake();
  }

  /** Stops taking inputs: those waiting fail as not applied. */
  private fail(err: SvcError): void {
    this.failure ??= err;
    for (const w of this.waiting.splice(0)) w.refuse(notApplied(this.failure));
    this.wake();
  }

  /** Wakes `room` callers that now fit, and `close` once everything is settled. */
  private wake(): void {
    while (
      this.roomWaiters.length > 0 &&
      (this.failure || (this.waiting.length === 0 && this.fits(this.roomWaiters[0]!.bytes)))
    )
      this.roomWaiters.shift()!.wake();
    if (this.unsettled === 0 && this.waiting.length === 0) {
      const idle = this.idle;
      this.idle = undefined;
      idle?.();
    }
  }
}
