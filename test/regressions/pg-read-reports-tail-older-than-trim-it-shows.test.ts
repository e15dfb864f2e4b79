/**
 * Found by the multi-node ordering suite (trim workflow, the linearizability search failed on
 * SEED=1206121384): a unary read on one node, from 1796, returned 1806..1827 and said the
 * stream ended at 1828; records 1796..1805 existed until a trim through another node, stored
 * at seq 1832, removed them while the read went on. No moment of the stream had both: when its
 * tail was 1828 those records were there, and once they were trimmed the tail was past 1832.
 * The read had asked for the tail when it started (1828), found the gap the trim left, and
 * went on to that old tail.
 *
 * Now a read that finds such a gap asks for the tail again and reads on to it: here it
 * returns the records up to and including the trim's own, never a short read that ends
 * before the trim whose effect it shows.
 */
import { describe, expect, it } from "vitest";
import { batch, readWhileTrimmed } from "../helpers/trim-meanwhile.js";

describe("a read on a shared stream that finds the gap of a trim made meanwhile", () => {
  it("reads on to the tail after that trim", async () => {
    const seqs = await readWhileTrimmed(
      {
        // Stored: 0..8 in three batches; this node has not heard of any of it yet.
        before: [batch(0, 3), batch(3, 3), batch(6, 3)],
        tail: 9,
        known: 0,
        // Between this read's first and second look: another node appends a trim to 6 at seq 9,
        // and the sweep removes the batches below it.
        after: [batch(6, 3), batch(9, 1)],
        stateAfter: { nextSeq: 10, trimPoint: 6 },
      },
      0,
    );
    // Not [6, 7, 8]: a short read that ends at 9 though the trim it shows is stored at 9.
    expect(seqs).toEqual([6, 7, 8, 9]);
  });
});
