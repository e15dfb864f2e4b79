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

/**
 * Takes `bytes` from a session's own budget, then from the shared one: one session that
 * never reads its acks can hold at most its own limit of the shared budget, so it cannot
 * stall every other session.
 */
export async function acquireFair(own: ByteBudget, shared: ByteBudget, bytes: number): Promise<() => void> {
  const releaseOwn = await own.acquire(bytes);
  const releaseShared = await shared.acquire(bytes);
  return () => {
    releaseShared();
    releaseOwn();
  };
}
