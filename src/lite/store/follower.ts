/**
 * A live reader registered on a stream (protocol.md §6.6, §7.5). The stream pushes each batch
 * once it is durable. The queue is bounded: a follower that falls behind is marked `lagged`,
 * its queue is dropped, and the reader goes back to reading storage (never unbounded
 * buffering; the reference server allows 25 batches).
 */
import type { SvcError } from "../../errors.js";
import { MAX_TIMER_MS, type SequencedRecord, type StreamPosition } from "../../types.js";

export interface LiveBatch {
  records: SequencedRecord[];
  /** The stream's tail just after this batch. */
  tail: StreamPosition;
  /** The stream's trim point once this batch is durable (a batch may trim itself). */
  trimPoint: number;
}

export const FOLLOWER_QUEUE_BATCHES = 25;

export class Follower {
  queue: LiveBatch[] = [];
  lagged = false;
  /** Set when the stream can no longer be followed (deleted, storage failure, shutdown). */
  closed: SvcError | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly capacity = FOLLOWER_QUEUE_BATCHES) {}

  push(batch: LiveBatch): void {
    if (this.lagged) return;
    if (this.queue.length >= this.capacity) {
      this.lagged = true;
      this.queue = [];
    } else {
      this.queue.push(batch);
    }
    this.notify();
  }

  /** The stream moved without this follower seeing the records (another node wrote them). */
  lag(): void {
    this.lagged = true;
    this.queue = [];
    this.notify();
  }

  close(error: SvcError): void {
    this.closed = error;
    this.notify();
  }

  /** True when `wait` would return at once. */
  get ready(): boolean {
    return this.queue.length > 0 || this.lagged || this.closed !== undefined;
  }

  /** Resolves when a batch, lag or close is pending, or at `deadline` (ms epoch), or on abort. */
  wait(deadline: number | undefined, signal?: AbortSignal): Promise<void> {
    if (this.ready || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (): void => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        this.wake = undefined;
        resolve();
      };
      this.wake = done;
      if (deadline !== undefined) timer = setTimeout(done, Math.min(MAX_TIMER_MS, Math.max(0, deadline - Date.now())));
      signal?.addEventListener("abort", done, { once: true });
    });
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }
}
