/**
 * Found by the multi-node ordering suite in CI (trim workflow, SEED=891215883; the replay did
 * not repeat it, the timing is narrow): a unary read on one node, from 347, returned 353..382
 * and then 398..400, a hole of 15 records. While it ran, another append landed through that
 * node with a trim to 404, and the sweep removed the batches below 404 from the database; the
 * node's batch cache still held the batch at 398 it had just appended. At 383 the read found
 * in storage only batches past the tail it knew (398), took that for the end of what it had to
 * read and moved its position to 398 without treating the missing records as the gap of a
 * trim, and then read the cached batch at 398.
 *
 * Now a batch found past the known tail with records missing before it is a gap like any
 * other on a shared stream: what the read had gathered is dropped, the tail and the trim point
 * are asked again, and the read goes on from the batch or the trim point, whichever is later:
 * never a hole, and no record below a trim point it has heard of.
 */
import { describe, expect, it } from "vitest";
import { batch, readWhileTrimmed } from "../helpers/trim-meanwhile.js";

describe("a read on a shared stream whose next records were trimmed away while a later batch is cached", () => {
  it("never returns a hole: it starts again past the trim", async () => {
    const seqs = await readWhileTrimmed(
      {
        // Stored: 0..8 in three batches; this node knows the tail up to 6 and has the batch at 6
        // in its cache (it appended it).
        before: [batch(0, 3), batch(3, 3), batch(6, 3)],
        tail: 9,
        known: 6,
        cached: [batch(6, 3)],
        // Between this read's first and second look: an append at 9..11 holding a trim to 9
        // lands, and the sweep removes every batch below 9 from the database.
        after: [batch(9, 3)],
        stateAfter: { nextSeq: 12, trimPoint: 9 },
      },
      0,
    );
    // Not [0, 1, 2, 6, 7, 8, 9, 10, 11]: a hole at 3..5, and 6..8 below the trim it shows.
    expect(seqs).toEqual([9, 10, 11]);
  });
});
