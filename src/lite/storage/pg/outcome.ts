/**
 * What a failed statement or transaction did: nothing, surely (the database answered with an
 * error, so its transaction rolled back; or nothing was sent), or it is unknown (no answer, or
 * the connection ended: it may have committed before its answer was lost).
 */
import { SvcError } from "../../../errors.js";
import { NotSent } from "./wait.js";

/**
 * Whether a failure surely changed nothing: the database answered with an error of the
 * statement, or no connection could be made. No answer, or the connection ended (SQLSTATE class
 * 08, 57P0x), leaves the outcome open.
 */
export function surelyRolledBack(e: unknown): boolean {
  if (e instanceof NotSent) return true;
  const code = (e as { code?: unknown }).code;
  if (code === "ECONNREFUSED") return true; // nothing was sent
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith("08") && !/^57P0/.test(code);
}

/**
 * A failure that surely wrote nothing, safe to retry: 409 `transaction_conflict` when it waited
 * too long for a lock another node's change held (lock_timeout, session.ts), else 500 `storage`
 * marked as without side effects.
 */
export function notWritten(cause: unknown): SvcError {
  if ((cause as { code?: unknown }).code === "55P03")
    return new SvcError({
      code: "transaction_conflict",
      origin: "server",
      status: 409,
      retryable: true,
      sideEffects: false,
      cause,
      message: "another change held the stream or basin for too long; nothing was written: retry",
    });
  return new SvcError({
    code: "storage",
    origin: "server",
    status: 500,
    retryable: true,
    sideEffects: false,
    cause,
    message: "the database did not store the change (the server's log says why); nothing was written: retry",
  });
}
