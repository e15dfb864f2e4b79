/**
 * One wait for the database, under one deadline: the connection (a free one of the pool, a
 * new one made, or a place in the pool's queue) and the statements on it count against the
 * same time. At the deadline the connection is cut (its socket destroyed; a silent one would
 * otherwise stay open), so nothing sent on it can still be answered and it never goes back to
 * the pool. A connection that arrives after its wait gave up goes back unused.
 */
import type pg from "pg";

/** The wait gave up before anything was sent: the database surely did nothing of it. */
export class NotSent extends Error {
  override readonly name = "NotSent";
  /** Because its deadline came (not because it was refused at once). */
  constructor(
    message: string,
    readonly timedOut = false,
  ) {
    super(message);
  }
}

/** The wait reached its deadline after its statement was sent: its outcome is unknown. */
export class NoAnswer extends Error {
  override readonly name = "NoAnswer";
}

/** Waits for a connection; rejects with NotSent at the deadline or when told to (`fail`). */
export interface Acquiring {
  fail(e: NotSent): void;
}

export function acquire(pool: pg.Pool, ms: number, waiting: Set<Acquiring>): Promise<pg.PoolClient> {
  return new Promise((resolve, reject) => {
    let done = false;
    const w: Acquiring = {
      fail: (e) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        waiting.delete(w);
        reject(e);
      },
    };
    const timer = setTimeout(
      () => w.fail(new NotSent(`no connection to the database within ${Math.round(ms)} ms`, true)),
      Math.max(0, ms),
    );
    waiting.add(w);
    pool.connect().then(
      (c) => {
        if (done) return c.release();
        done = true;
        clearTimeout(timer);
        waiting.delete(w);
        resolve(c);
      },
      (e: unknown) => {
        const why = (e as Error)?.message ?? String(e);
        w.fail(new NotSent(`cannot connect to the database: ${why}`, /timeout/i.test(why)));
      },
    );
  });
}

/** Destroys a connection's socket at once (pg-pool does the same to a connection that times out). */
export function cut(c: pg.ClientBase): void {
  (c as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

/** Ends `c` politely (a Terminate message), or cuts it if that takes more than `ms` (a silent connection). */
export async function endWithin(c: pg.ClientBase & { end(): Promise<void> }, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([c.end().catch(() => {}), new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
  cut(c);
}

/** `p`, a statement on `c`, within `ms`: at the deadline `c` is cut and this fails with NoAnswer. */
export async function answeredWithin<T>(c: pg.ClientBase, ms: number, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      cut(c);
      reject(new NoAnswer(`the database did not answer within ${Math.round(ms)} ms`));
    }, ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether the database itself answered with this error (a SQLSTATE): the connection is fine. */
function answeredError(e: unknown): boolean {
  const code = (e as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code);
}

/**
 * `body` on `c` within `ms`; at the deadline `c` is cut and the wait fails with NoAnswer.
 * Resolves with the body's result and whether `c` may go back to the pool.
 */
export async function bounded<T>(
  c: pg.PoolClient,
  ms: number,
  body: (c: pg.PoolClient) => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown; reusable: boolean }> {
  let lost: unknown;
  let late = false;
  const onError = (e: Error): void => {
    lost ??= e;
  };
  c.on("error", onError);
  const timer = setTimeout(() => {
    late = true;
    cut(c);
  }, ms);
  try {
    const value = await body(c);
    if (lost === undefined) return { ok: true, value };
    return { ok: false, error: lost, reusable: false };
  } catch (e) {
    if (late)
      return {
        ok: false,
        error: new NoAnswer(`the database did not answer within ${Math.round(ms)} ms`),
        reusable: false,
      };
    return { ok: false, error: e, reusable: lost === undefined && answeredError(e) };
  } finally {
    clearTimeout(timer);
    c.removeListener("error", onError);
  }
}
