/**
 * Bug: one append session that never reads its acks stalled every other
 * append session. Inputs hold the shared 128 MiB in-flight budget until their acks are
 * written, and a reader that does not read lets no ack through, so that one session took the
 * whole budget and sessions on other streams timed out with 0 acks until it disconnected.
 * Each session may now hold at most an eighth of the shared budget (16 MiB of 128 MiB). The
 * test shrinks the shared budget to 8 MiB (SVC_LITE_APPEND_BUDGET_BYTES) to stay small.
 */
import { connect } from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeAppendAck } from "../../src/wire/proto.js";
import { encodeAppendInput } from "../../src/wire/proto.js";
import { encodeFrame, FrameParser } from "../../src/wire/framing.js";
import { liteClient, startLite, uniqueBasin, type Lite } from "../helpers/lite.js";

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

const MIB = 1 << 20;
// 64 KiB inputs: the acks the greedy session never reads (tiny, buffered by the server until
// its write buffer is full) cover ~25 MiB before its writer blocks; then it holds the budget.
const frame = encodeFrame(
  encodeAppendInput({
    records: Array.from({ length: 16 }, () => ({ headers: [], body: new Uint8Array(4 * 1024 - 8) })),
  }),
);

describe("a session that never reads its acks cannot stall the others", () => {
  it("while a non-reading session pushes 64 MiB, another session still gets its acks", async () => {
    // The greedy session: a raw HTTP/2 stream whose response is never read (its window fills).
    const greedy = connect(lite.url, { settings: { initialWindowSize: 0 } }); // no ack can reach it
    greedy.on("error", () => undefined);
    const req = greedy.request({
      ":method": "POST",
      ":path": "/v1/streams/greedy/records",
      authorization: `Bearer ${lite.token}`,
      "svc-basin": basin,
      "content-type": "svc/proto",
    });
    req.on("error", () => undefined);
    req.pause();
    let sent = 0;
    await new Promise<void>((resolve) => {
      const pump = (): void => {
        while (sent < 64 * MIB) {
          sent += frame.length;
          if (!req.write(frame)) return void req.once("drain", pump);
        }
        resolve();
      };
      pump();
      setTimeout(resolve, 3_000); // the server stops reading it: that is the point
    });

    // A well-behaved session on another stream, on its own connection.
    const other = connect(lite.url);
    other.on("error", () => undefined);
    const s = other.request({
      ":method": "POST",
      ":path": "/v1/streams/polite/records",
      authorization: `Bearer ${lite.token}`,
      "svc-basin": basin,
      "content-type": "svc/proto",
    });
    const parser = new FrameParser();
    const acks: number[] = [];
    const got3 = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`only ${acks.length} acks in 10 s while another session hogs the budget`)),
        10_000,
      );
      s.on("data", (c: Buffer) => {
        if (acks.length >= 3) return;
        parser.push(c);
        for (let f = parser.next(); f && acks.length < 3; f = parser.next())
          if (!f.terminal) acks.push(decodeAppendAck(f.payload).end.seqNum);
        if (acks.length >= 3) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    for (let i = 0; i < 3; i++) s.write(frame);
    await got3;
    expect(acks).toEqual([16, 32, 48]);
    s.end();
    other.close();
    greedy.destroy();
  }, 30_000);
});
