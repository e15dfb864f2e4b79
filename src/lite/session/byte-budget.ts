/**
 * A budget of in-flight append bytes shared by every session (protocol.md §6.5 item 7): an
 * input is read only once its metered bytes fit, so a fast writer meets back-pressure (its
 * HTTP/2 window fills) instead of growing the server's memory. A single input larger than
 * the whole budget is admitted alone.
 */
export class ByteBudget {
  private used = 0;
  private readonly waiters: { bytes: number; grant: () => void }[] = [];

  constructor(readonly limit: number) {}

  get inUse(): number {
    return this.used;
  }

  /** Resolves with a release function once `bytes` fit in the budget. */
  async acquire(bytes: number): Promise<() => void> {
    if (this.waiters.length > 0 || (this.used > 0 && this.used + bytes > this.limit)) {
      await new Promise<void>((grant) => this.waiters.push({ bytes, grant }));
    } else {
      this.used += bytes;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= bytes;
      this.grantWaiting();
    };
  }

  private grantWaiting(): void {
    while (this.waiters.length > 0) {
      const next = this.waiters[0]!;
      if (this.used > 0 && this.used + next.bytes > this.limit) return;
      this.waiters.shift();
      this.used += next.bytes;
      next.grant();
    }
  }
}

/** Something a session draws its in-flight bytes from: one ByteBudget, or several (append-limits.ts). */
export interface Budget {
  /** Resolves with a release function (calling it more than once releases once) once `bytes` fit. */
  acquire(bytes: number): Promise<() => void>;
}

/**
 * Takes `bytes` from each budget in turn, narrowest first (a session's own share, then its
 * connection's, its token's, the shared one): while one waits for room in a budget it holds
 * nothing of the wider ones, so a holder stalled at its own cap takes nothing from the others.
 */
export async function acquireEach(budgets: readonly ByteBudget[], bytes: number): Promise<() => void> {
  const releases: (() => void)[] = [];
  for (const b of budgets) releases.push(await b.acquire(bytes));
  return () => {
    for (let i = releases.length - 1; i >= 0; i--) releases[i]!();
  };
}
