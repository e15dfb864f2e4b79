/**
 * The error an append input gets when it was never sent, or was refused unsent, because an earlier
 * input of the same appender or session failed: nothing of it was appended (retryable, no side
 * effects), and the earlier failure is its cause.
 */
import { SvcError } from "../errors.js";

export function notApplied(cause: SvcError): SvcError {
  return new SvcError({
    code: "not_applied",
    message: `not appended because an earlier input failed: ${cause.message}`,
    origin: "client",
    retryable: true,
    sideEffects: false,
    cause,
  });
}
