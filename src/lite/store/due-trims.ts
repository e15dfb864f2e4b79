/**
 * When the sweep carries out a trim (protocol.md §7.7, docs/server.md "Trims"): a trim point
 * is recorded durably the moment its append is, but its records stay readable until the sweep
 * removes them, no sooner than one sweep period (`delayMs`) after this node first saw that trim
 * point. So a reader that starts at or below the trim point right after the trim (a replay, a
 * follower catching up) still gets every record the trim removes, and the removal comes within
 * a stated bound.
 *
 * What was seen is kept per stream only while a trim point above the stream's removal mark
 * waits: each trim point the sweep (or a trim through this node) met, with when it was first
 * seen. A stream not seen in a whole pass is forgotten (deleted, or another node's).
 */
export class DueTrims {
  private readonly seen = new Map<number, { point: number; at: number }[]>();

  constructor(
    private readonly delayMs: number,
    private readonly clock: () => number,
  ) {}

  /**
   * Notes that stream `id` has trim point `point` now and removal mark `removed`; answers how
   * far a removal is due: the highest trim point seen at least `delayMs` ago (else `removed`).
   */
  due(id: number, point: number, removed: number): number {
    const now = this.clock();
    const list = (this.seen.get(id) ?? []).filter((s) => s.point > removed);
    if (point > removed && (list.length === 0 || list[list.length - 1]!.point < point)) list.push({ point, at: now });
    let due = removed;
    for (const s of list) if (s.at + this.delayMs <= now) due = Math.max(due, s.point);
    const waiting = list.filter((s) => s.point > due);
    if (waiting.length > 0) this.seen.set(id, waiting);
    else this.seen.delete(id);
    return due;
  }

  /** In how many ms the next waiting trim is due (undefined: none waits). */
  nextDueIn(): number | undefined {
    let first: number | undefined;
    for (const list of this.seen.values()) for (const s of list) first = Math.min(first ?? s.at, s.at);
    return first === undefined ? undefined : Math.max(0, first + this.delayMs - this.clock());
  }

  /** Forgets every stream but `kept` (those a whole pass saw). */
  keepOnly(kept: Set<number>): void {
    for (const id of this.seen.keys()) if (!kept.has(id)) this.seen.delete(id);
  }
}
