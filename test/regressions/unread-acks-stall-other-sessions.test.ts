/**
 * Bug: one append session that never reads its acks stalled every other
 * append session. Inputs hold the shared 128 MiB in-flight budget until their acks are
 * written, and a reader that does not read lets no ack through, so that one session took the
 * whole budget and sessions on other streams timed out with 0 acks until it disconnected.
 * Each session may now hold at most an eighth of the shared budget (16 MiB of 128 MiB). The
 * test shrinks the shared budget to 8 MiB (SVC_LITE_APPEND_BUDGET_BYTES) to stay small.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeFrame } from "../../src/wire/framing.js";
import { encodeAppendInput } from "../../src/wire/proto.js";
import { type Lite, liteClient, startLite, uniqueBasin } from "../helpers/lite.js";
import { acksOf, appendSessionHeaders, unreadAppendSession, unreadingConnection } from "../helpers/raw-session.js";

let lite: Lite;
let basin: string;
beforeAll(async () => {
  lite = await startLite({ inMemory: true, env: { SVC_LITE_APPEND_BUDGET_BYTES: String(8 << 20) } });
  basin = uniqueBasin("fair");
  expect(
    (await liteClient(lite).call("POST", "/v1/basins", { json: { basin, config: { create_stream_on_append: true } } }))
      .status,
  ).toBe(201);
});
afterAll(async () => {
  await lite?.stop();
});

// 64 KiB inputs: the acks the greedy session never reads (tiny, buffered by the server until
// its write buffer is full) cover ~25 MiB before its writer blocks; then it holds the budget.
const frame = encodeFrame(
  encodeAppendInput({
    records: Array.from({ length: 16 }, () => ({ headers: [], body: new Uint8Array(4 * 1024 - 8) })),
  }),
);

describe("a session that never reads its acks cannot stall the others", () => {
  it("while a non-reading session pushes 64 MiB, another session still gets its acks", async () => {
    // The greedy session: a raw HTTP/2 stream whose response is never read (its window is 0).
    const greedy = unreadingConnection(lite.url);
    try {
      // It holds what it can once the server stops reading it, which only a quiet time tells: no
      // drain for the helper's 1.5 s, as in the other budget regressions (it was 3 s here). A
      // pause taken for that too early does not stop it: it writes again at each drain.
      await unreadAppendSession(greedy, appendSessionHeaders(lite.token, basin, "greedy"), frame);
      // A well-behaved session on another stream, on its own connection.
      const acks = await acksOf(lite.url, appendSessionHeaders(lite.token, basin, "polite"), [frame, frame, frame]);
      expect(acks).toEqual([16, 32, 48]);
    } finally {
      greedy.destroy();
    }
  }, 30_000);
});
