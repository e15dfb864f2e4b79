/**
 * Batches from several producers to one consumer, in order of arrival. `put` resolves once the
 * consumer has taken the item and asked for the next one (it has handled this one), so each
 * producer waits for its own batch to be written: memory stays bounded by one batch per
 * producer whatever the speed of the output.
 */
export class Arrivals<T> {
  private readonly items: { value: T; taken: () => void }[] = [];
  private wake: (() => void) | undefined;
  private closed = false;

  put(value: T): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((taken) => {
      this.items.push({ value, taken });
      this.wake?.();
    });
  }

  /** No more items: the consumer ends once those queued are taken. */
  close(): void {
    this.closed = true;
    this.wake?.();
  }

  /** Releases every waiting producer without handing its item over (the consumer stopped). */
  discard(): void {
    this.closed = true;
    for (const it of this.items.splice(0)) it.taken();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for (;;) {
      const it = this.items.shift();
      if (it) {
        try {
          yield it.value;
        } finally {
          it.taken();
        }
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = undefined;
    }
  }
}
