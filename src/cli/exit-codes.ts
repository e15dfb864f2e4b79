/**
 * The exit-code contract, in one function. Documented in docs/exit-codes.md (`svc help
 * exit-codes`), summed up in the README and in `svc --help`.
 */
import { SvcError } from "../errors.js";

export const EXIT = {
  ok: 0,
  runtime: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  conflict: 5,
  unavailable: 6,
  badInput: 7,
  verification: 8,
  pending: 10,
  outcomeUnknown: 75,
  interrupted: 130,
  terminated: 143,
} as const;

const CONFLICT_CODES = new Set([
  "resource_already_exists",
  "basin_deletion_pending",
  "stream_deletion_pending",
  "seq_num_mismatch",
  "fencing_token_mismatch",
  "range_not_satisfiable",
  "transaction_conflict",
  "records_missing",
  "consumer_taken_over",
]);

/**
 * Exit code for an error. `idempotent: false` marks a call that must not be blindly repeated
 * (append): a transient failure that may have taken effect is then "outcome unknown" (75)
 * rather than "unavailable" (6).
 */
export function exitCodeFor(error: unknown, opts: { idempotent?: boolean } = {}): number {
  if (!(error instanceof SvcError)) return EXIT.runtime;
  switch (error.code) {
    case "usage":
      return EXIT.usage;
    case "bad_input":
      return EXIT.badInput;
    case "interrupted":
      return EXIT.interrupted;
    case "connect_failed":
    case "tls_untrusted":
      return EXIT.unavailable;
    case "unverified_server":
      return EXIT.auth;
    case "consumer_not_found":
      return EXIT.notFound;
    case "not_the_service":
      // The endpoint reaches a web server that is not the service: a configuration to fix.
      return EXIT.usage;
  }
  const status = error.status;
  if (CONFLICT_CODES.has(error.code) || status === 409 || status === 412 || status === 416) return EXIT.conflict;
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404) return EXIT.notFound;
  if (status === 400 || status === 422) return EXIT.usage;
  if (error.retryable) {
    return opts.idempotent === false && error.sideEffects ? EXIT.outcomeUnknown : EXIT.unavailable;
  }
  return EXIT.runtime;
}
