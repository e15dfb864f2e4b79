/**
 * The one normalisation of a failure into the error lite puts on the wire, whatever carries
 * it: a unary JSON response (http/router.ts), a session's terminal frame, an SSE `error`
 * event (protocol.md §3.6, §6.3, §6.9). Kinds are told apart by code, never by message text:
 * - catalogue errors (§11.2) and the structured 412/416 pass unchanged;
 * - `out_of_range` (a u64 past 2^53 − 1) is 422 `invalid`;
 * - `too_large` (a frame that inflates past its cap) is 400 `bad_frame` (§6.2; unary bodies
 *   never get here: http/exchange.ts answers them 413);
 * - anything else is 500 `other`, with its message kept inside only for SvcErrors.
 * A storage driver's text is never in a message: it is the error's cause (`causeText`), which
 * lite logs with the 5xx it became.
 */
import { SERVER_CODES, SvcError, serverError } from "../errors.js";
import { encodeTerminalFrame } from "../wire/framing.js";

export function wireError(e: unknown): SvcError {
  if (!(e instanceof SvcError)) return serverError("other", "internal server error");
  if (e.code === "out_of_range") return serverError("invalid", e.message);
  if (e.code === "too_large") return serverError("bad_frame", e.message);
  if (e.status === 412 || e.status === 416 || (e.code in SERVER_CODES && e.status !== undefined)) return e;
  return serverError("other", e.message);
}

/** The terminal frame for a failure: its status and the body a unary response would carry. */
export function terminalFor(e: unknown): Uint8Array {
  const err = wireError(e);
  return encodeTerminalFrame(err.status ?? 500, err.toBody());
}

/**
 * A failure whose outcome nobody can tell for several appends at once (a group statement on
 * PostgreSQL whose answer was lost, and the database would not say afterwards). An append
 * session cannot say so in a terminal frame (the inputs after the one it names would count
 * as never applied), so it ends the connection without one: the client then treats every
 * input in flight as of unknown outcome, as after any lost connection.
 */
export class OutcomeUnknown extends SvcError {
  constructor(message: string, cause?: unknown) {
    super({ code: "storage", origin: "server", status: 500, retryable: true, sideEffects: true, message, cause });
  }
}

/** The texts of an error's causes (a storage driver's, say), for the server's log; "" when none. */
export function causeText(e: unknown): string {
  const texts: string[] = [];
  for (let c = (e as Error | undefined)?.cause; c !== undefined && texts.length < 4; c = (c as Error).cause)
    texts.push(c instanceof Error ? c.message : String(c));
  return texts.length === 0 ? "" : ` (${texts.join(": ")})`;
}
