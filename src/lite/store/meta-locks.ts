/**
 * This node's locks on metadata, by resource: operations on different basins, or on different
 * streams of one basin, run at the same time; those on one resource run one at a time, in
 * arrival order.
 *
 * - A basin's own operations (create, reconfigure, delete, remove) hold its lock alone.
 * - A stream's operations (create, reconfigure, delete, load, the sweep's delete-on-empty)
 *   hold its basin's lock shared with the basin's other streams, and the stream's own alone:
 *   a basin deletion never runs beside the loading or creation of one of its streams (which it
 *   would miss when sealing what this node has loaded).
 *
 * What a change depends on is still judged by the storage inside its own transaction (the
 * catalog's conditions), so locks order this node's work; they do not make it correct across
 * nodes, and need not. Every operation answers only once what it read is durable
 * (`settled`): a creation another one saw is never lost by a crash after the answer.
 */

/** A FIFO read-write lock: `shared` holders run together, an `exclusive` one alone. */
class RwLock {
  private readers = 0;
  private writer = false;
  private readonly queue: { exclusive: boolean; wake: () => void }[] = [];

  get idle(): boolean {
    return this.readers === 0 && !this.writer && this.queue.length === 0;
  }

  acquire(exclusive: boolean): Promise<void> {
    if (this.queue.length === 0 && (exclusive ? this.readers === 0 && !this.writer : !this.writer)) {
      this.take(exclusive);
      return Promise.resolve();
    }
    return new Promise((wake) => this.queue.push({ exclusive, wake }));
  }

  release(exclusive: boolean): void {
    if (exclusive) this.writer = false;
    else this.readers--;
    while (this.queue.length > 0) {
      const next = this.queue[0]!;
      if (next.exclusive ? this.readers > 0 || this.writer : this.writer) break;
      this.queue.shift();
      this.take(next.exclusive);
      next.wake();
      if (next.exclusive) break;
    }
  }

  private take(exclusive: boolean): void {
    if (exclusive) this.writer = true;
    else this.readers++;
  }
}

export class MetaLocks {
  private readonly locks = new Map<string, RwLock>();

  /** @param settled resolves once everything written so far is durable (lmdb: its flush). */
  constructor(private readonly settled: () => Promise<void>) {}

  /** Runs `fn` holding basin `basin`'s lock alone. */
  basin<T>(basin: string, fn: () => Promise<T> | T): Promise<T> {
    return this.hold([[`b\u0000${basin}`, true]], fn);
  }

  /** Runs `fn` holding its basin's lock shared and stream `name`'s alone. */
  stream<T>(basin: string, name: string, fn: () => Promise<T> | T): Promise<T> {
    return this.hold(
      [
        [`b\u0000${basin}`, false],
        [`s\u0000${basin}\u0000${name}`, true],
      ],
      fn,
    );
  }

  /** Runs a read (a listing, a lookup) under no lock; it answers once what it saw is durable. */
  async read<T>(fn: () => Promise<T> | T): Promise<T> {
    try {
      return await fn();
    } finally {
      await this.settled();
    }
  }

  /** Takes the locks in the order given (basin before stream, as everywhere: no cycle). */
  private async hold<T>(wanted: [string, boolean][], fn: () => Promise<T> | T): Promise<T> {
    const held: [RwLock, string, boolean][] = [];
    try {
      for (const [key, exclusive] of wanted) {
        let lock = this.locks.get(key);
        if (!lock) this.locks.set(key, (lock = new RwLock()));
        const acquired = lock.acquire(exclusive);
        held.push([lock, key, exclusive]);
        await acquired;
      }
      try {
        return await fn();
      } finally {
        await this.settled();
      }
    } finally {
      for (const [lock, key, exclusive] of held.reverse()) {
        lock.release(exclusive);
        if (lock.idle && this.locks.get(key) === lock) this.locks.delete(key);
      }
    }
  }
}
