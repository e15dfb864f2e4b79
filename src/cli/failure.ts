/**
 * Errors on their way to the one sink in main.ts.
 *
 * - `OperationError` wraps a failure with the operation and resource it concerned, so the
 *   sink prints `error: Failed to <op> <uri>: <message> (<status> <code>)`.
 * - `usageError` is a bad flag, argument or configuration (exit 2).
 * - `ioError` is a local file or directory svc could not open, write or create (exit 1).
 * - `ExitRequest` is not an error: a command asking main.ts for a specific exit code
 *   (e.g. 10 for pending changes); only main.ts calls process.exit.
 */
import { clientError, SvcError } from "../errors.js";

export class OperationError extends Error {
  constructor(
    readonly operation: string,
    readonly resource: string | undefined,
    readonly error: unknown,
    readonly hint?: string,
  ) {
    super(error instanceof Error ? error.message : String(error), { cause: error });
    this.name = "OperationError";
  }
}

export class ExitRequest extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
    this.name = "ExitRequest";
  }
}

/** A usage error (exit 2), optionally with the hint the sink prints instead of "see --help". */
export function usageError(message: string, hint?: string): SvcError {
  const e = clientError("usage", message);
  return hint === undefined ? e : withHint(e, hint);
}

/** `e`, carrying the `hint:` line the sink prints for it (hintOf). */
export function withHint<E extends Error>(e: E, hint: string): E {
  Object.defineProperty(e, "hint", { value: hint, enumerable: false });
  return e;
}

export function hintOf(e: unknown): string | undefined {
  const h = (e as { hint?: unknown } | null)?.hint;
  return typeof h === "string" ? h : undefined;
}

/** Runs `fn`, labelling any failure with the operation (`create basin`) and resource URI. */
export async function attempt<T>(
  operation: string,
  resource: string | undefined,
  fn: () => Promise<T>,
  hint?: string,
): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof OperationError || e instanceof ExitRequest) throw e;
    throw new OperationError(operation, resource, e, hint);
  }
}

/** A local file or directory that svc could not open, write or create (code `io`, exit 1). */
export function ioError(message: string, cause: unknown): SvcError {
  return new SvcError({ code: "io", message, origin: "client", retryable: false, sideEffects: false, cause });
}
