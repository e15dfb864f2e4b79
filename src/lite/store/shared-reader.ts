/**
 * What a read sees of a shared stream's stored records (several nodes on PostgreSQL; the seam is
 * stored-reader.ts). This node knows a lower bound of the stream's state (`known`): records below
 * it are served without asking anyone (from the node's batch cache or the database), and where
 * the answer depends on the tail now (whether the read caught up, a gap) the database is asked
 * (`tailNow`, which reflects every append acknowledged before it, through any node).
 *
 * The sweep (on any node) removes what lies below a trim or has expired while a read goes on. A
 * read that finds records missing before a stored batch has met such a removal: it asks for the
 * tail and removal mark again and restarts its output batch past them, so it never returns a
 * hole (records on both sides of a removed range) nor records below a removal it shows.
 */
import type { StreamPosition } from "../../types.js";
import type { NodeClock } from "../storage/seams.js";
import { storedCount } from "../storage/types.js";
import {
  batchesToRead,
  expiredAt,
  Page,
  type ReaderSource,
  type Room,
  type StoredReader,
  type StoredStep,
} from "./stored-reader.js";
import { wentBack } from "./went-back.js";

/** What the reader needs of a shared stream: its reads, and the tail now. */
interface SharedSource extends ReaderSource<"shared"> {
  tailNow(): Promise<StreamPosition>;
}

export class SharedReader implements StoredReader<"shared"> {
  private readonly page = new Page();
  /** An empty read of storage asks for the tail once before the read jumps to it. */
  private refreshed = false;

  /** @param confirmed the tail the database gave this read (-1: not asked yet). */
  constructor(
    private readonly stream: SharedSource,
    private confirmed: number,
    private readonly clock: NodeClock,
  ) {}

  private async tailNow(): Promise<number> {
    this.confirmed = (await this.stream.tailNow()).seqNum;
    return Math.max(this.stream.known.nextSeq, this.confirmed);
  }

  async next(position: number, room: Room): Promise<StoredStep> {
    const known = this.stream.known;
    let tail = Math.max(known.nextSeq, this.confirmed);
    const expired = expiredAt(this.stream.meta, this.clock.now());
    let at = Math.max(position, Math.min(this.stream.removedBelow, tail));
    for (;;) {
      if (at >= tail) {
        // At the tail known here: the end only if it is the tail now (another node may have appended).
        if (this.confirmed >= at) return { kind: "end", at };
        tail = await this.tailNow();
        // This read got here through records the database no longer holds (a failover lost them).
        if (at > tail) throw wentBack(at, tail);
        if (at >= tail) return { kind: "end", at };
      }
      let b = this.page.find(at);
      if (!b) {
        this.page.fill(await this.stream.readBatches(at, batchesToRead(this.page.last, room)));
        b = this.page.find(at);
        if (!b) {
          // Removed by the sweep (a trim carried out, or retention), maybe past the tail this read knows.
          if (!this.refreshed) {
            this.refreshed = true;
            tail = await this.tailNow();
            continue;
          }
          return { kind: "end", at: Math.max(at, tail) };
        }
      }
      const end = b.firstSeq + storedCount(b);
      if (expired(b)) {
        at = end;
        continue;
      }
      if (b.firstSeq > at) {
        // A gap: a prefix removed while this read went on. Past it and the removal mark now known,
        // bounded by the tail now (the mark may lie past the tail it knew).
        await this.tailNow();
        this.page.clear();
        return { kind: "restart", from: Math.max(b.firstSeq, this.stream.removedBelow) };
      }
      this.refreshed = false;
      return { kind: "run", batch: b, from: at, to: Math.min(end, tail) };
    }
  }
}
