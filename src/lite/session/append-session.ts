/**
 * The server side of an append session (protocol.md §6.5, §6.7).
 *
 * Inputs are read, decoded, validated and handed to the stream one at a time, in order; each
 * accepted input gets exactly one ack, in the same order, once it is durable. The first input
 * that fails (a broken frame, an invalid batch, a failed condition, a storage error) gets a
 * terminal frame after the acks of everything before it, and nothing after it is applied.
 * A client half-close ends the session cleanly once every ack is out. When the server drains,
 * acks carry the reconnect-advised flag, reading stops, and after the last ack for what was
 * accepted the session ends with terminal 503 `server_draining`.
 *
 * Inputs hold their bytes of the session's budget (append-limits.ts) until their acks are
 * written. A client that reads no ack for `stallMs` while acks wait (the write of one does
 * not complete) is ended the same way: reading stops, what it holds is given back as its
 * inputs become durable, and its acks are followed by terminal 408 `request_timeout`; its
 * stream is reset if it still reads nothing `stallMs` later.
 */
import { SvcError, serverError, serverFail } from "../../errors.js";
import { checkBatch } from "../../rules/records.js";
import type { AppendAck, AppendInput } from "../../types.js";
import { type Compression, encodeTerminalFrame, FrameParser } from "../../wire/framing.js";
import { frameMessage, messagePayload } from "../../wire/message-frame.js";
import { decodeAppendInput, encodeAppendAck } from "../../wire/proto.js";
import { type EitherKind, pending } from "../storage/answers.js";
import { OutcomeUnknown, terminalFor } from "../wire-error.js";
import { AckWatch, unreadAcks } from "./ack-watch.js";
import type { Budget } from "./byte-budget.js";
import type { Drain, SessionIO } from "./io.js";
import { STOP, Stopper } from "./stopper.js";

export interface AppendPort {
  /**
   * Hands `input` to the stream, in order: the next input is handed over only once this call
   * has returned (or its promise settled). `ack` settles once it (and everything before it) is
   * durable; `accepted` false means it was refused at once, and nothing after it is read.
   */
  submit(input: AppendInput): EitherKind<Submitted>;
}

interface Submitted {
  accepted: boolean;
  ack: Promise<AppendAck>;
}

export interface AppendSessionOptions {
  /** Compression negotiated for the frames we send. */
  compression: Compression;
  drain: Drain;
  /** What its inputs in flight draw from (append-limits.ts). */
  budget: Budget;
  /** How long acks may wait unread before the session is ended (none: never). */
  stallMs?: number;
  /** Told once when the session is ended for its unread acks. */
  onStall?: () => void;
  /** Told of the failure the session ends with, before its terminal frame (for the log). */
  onError?: (e: unknown) => void;
}

interface Pending {
  ack: Promise<AppendAck>;
  release: () => void;
}

export async function runAppendSession(io: SessionIO, port: AppendPort, opts: AppendSessionOptions): Promise<void> {
  const pending: Pending[] = [];
  let wakeWriter: (() => void) | undefined;
  let readingDone = false;
  let failed = false;
  const push = (p: Pending): void => {
    // The writer awaits acks in order, so a later refusal may settle before it gets there:
    // mark it handled now (the writer still receives the rejection).
    p.ack.catch(() => undefined);
    if (watch.stalled) void p.ack.then(p.release, p.release);
    pending.push(p);
    wakeWriter?.();
  };
  const stopper = new Stopper();
  const stopReading = (): void => stopper.stop();
  const offDrain = opts.drain.onDrain(() => stopReading());
  const offClose = io.onClose(() => stopReading());
  const watch = new AckWatch(
    opts.stallMs,
    () => {
      // The client reads no acks: stop reading, give back what waits for a write nobody reads.
      stopReading();
      for (const p of pending) void p.ack.then(p.release, p.release);
      opts.onStall?.();
    },
    () => io.abort(),
  );

  const writer = (async () => {
    for (;;) {
      while (pending.length === 0) {
        if (readingDone) return;
        await new Promise<void>((r) => (wakeWriter = r));
        wakeWriter = undefined;
      }
      const next = pending.shift()!;
      try {
        const ack = await next.ack;
        next.release();
        await watch.write(
          io.write(await frameMessage(encodeAppendAck(ack), opts.compression, { reconnect: opts.drain.draining })),
        );
      } catch (e) {
        next.release();
        failed = true;
        stopReading();
        for (const p of pending.splice(0)) p.release();
        opts.onError?.(e);
        if (e instanceof OutcomeUnknown) io.abort();
        else await io.write(terminalFor(e));
        return;
      }
    }
  })();

  const fail = (err: SvcError): void => push({ ack: Promise.reject(err), release: () => undefined });
  try {
    await readInputs(io, port, opts, stopper, push, fail, () => failed);
    // After every input read (each gets its ack first), never before one still being handed over.
    if (watch.stalled && !failed) fail(unreadAcks(watch.stallMs));
  } finally {
    readingDone = true;
    wakeWriter?.();
    offDrain();
    offClose();
  }
  await writer;
  watch.stop();
  if (!failed && opts.drain.draining && !io.closed) {
    await io.write(
      encodeTerminalFrame(503, {
        code: "server_draining",
        message: "the server is shutting down; reconnect and resend unacknowledged inputs",
      }),
    );
  }
  io.end();
}

async function readInputs(
  io: SessionIO,
  port: AppendPort,
  opts: AppendSessionOptions,
  stopper: Stopper,
  push: (p: Pending) => void,
  fail: (e: SvcError) => void,
  hasFailed: () => boolean,
): Promise<void> {
  const parser = new FrameParser();
  const chunks = io.chunks[Symbol.asyncIterator]();
  for (;;) {
    const next = await stopper.race(chunks.next());
    if (next === STOP || hasFailed()) return;
    if (next.done) break;
    try {
      parser.push(next.value);
      for (let frame = parser.next(); frame; frame = parser.next()) {
        if (frame.terminal) throw badFrame("clients must not send terminal frames");
        const payload = await messagePayload(frame);
        const input = decodeInput(payload);
        const bytes = checkBatch(input, serverFail("invalid"));
        const acquired = opts.budget.acquire(bytes);
        const release = await stopper.race(acquired);
        if (release === STOP) void acquired.then((r) => r()); // give back what arrives later
        if (release === STOP) return;
        if (hasFailed() || opts.drain.draining) {
          release();
          return;
        }
        const submitted = port.submit(input);
        const { accepted, ack } = pending(submitted) ? await submitted : submitted;
        push({ ack, release });
        if (!accepted) return;
      }
    } catch (e) {
      fail(e instanceof SvcError ? e : serverError("other", String(e)));
      return;
    }
  }
  try {
    parser.end();
  } catch (e) {
    fail(e as SvcError);
  }
}

function decodeInput(payload: Uint8Array): AppendInput {
  try {
    return decodeAppendInput(payload);
  } catch (e) {
    // A u64 beyond 2^53 − 1 is the same 422 as in a unary append (wire-error.ts), not a framing error.
    if (e instanceof SvcError && e.code === "out_of_range") throw e;
    throw badFrame(`undecodable AppendInput: ${(e as Error).message}`);
  }
}

function badFrame(message: string): SvcError {
  return serverError("bad_frame", message);
}
