/**
 * How storage answers a read, by kind of backend (seams.ts), said in the types:
 *
 * - local (lmdb, memory): this process alone writes, and a read answers at once with a value.
 *   Code that takes a local port (LocalCatalog, LocalLog, `MetricsStore<"local">`; the store's
 *   local streams and their readers) gets values and has nothing to await: lmdb's append and
 *   read paths keep their synchronous speed (an `await` of a value still waits a microtask, and
 *   lets other work run in between).
 * - shared (PostgreSQL): a read asks the database and answers with a promise; the reads a
 *   node serves from its cache (a basin, a stream, a token by key) answer at once when cached.
 *
 * Code that serves either kind takes the seam without a kind and gets an `EitherKind` answer: a
 * value or a promise. It awaits where it waits anyway (a request's metadata); where a local
 * answer must stay synchronous (a session's token check before each append or live batch) it
 * asks `pending`, or goes on with `mapAnswer`, which goes on at once with a value.
 */

export type BackendKind = "local" | "shared";

/**
 * A read's answer on a backend of kind `K`: a value (local), a promise (shared). Written as an
 * indexed type, not a conditional one (`K extends "local" ? …`): TypeScript judged a seam of
 * either kind assignable to a local one through the conditional (storage-answers.test.ts).
 */
export type Answer<K extends BackendKind, T> = { local: T; shared: Promise<T> }[K];

/** A read a shared backend may answer from its cache: a value (local); a value or a promise (shared). */
export type CachedAnswer<K extends BackendKind, T> = { local: T; shared: T | Promise<T> }[K];

/** The answer of code that serves either kind of backend: a value or a promise. */
export type EitherKind<T> = T | Promise<T>;

/** Whether `answer` must be waited for (a value goes on at once). */
export function pending<T>(answer: EitherKind<T>): answer is Promise<T> {
  return answer instanceof Promise;
}

/** `f` of an answer: at once for a value, once it comes for a promise. */
export function mapAnswer<T, R>(answer: EitherKind<T>, f: (value: T) => R): EitherKind<R> {
  return pending(answer) ? answer.then(f) : f(answer);
}
