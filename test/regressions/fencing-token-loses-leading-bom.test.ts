/**
 * Found by a bad-input probe: a fencing token that starts with U+FEFF (a byte order mark)
 * lost it. The UTF-8 decoder used for fence payloads and for the protobuf `fencing_token`
 * strips a leading BOM, so `fence "\ufefftok"` set the token to "tok": the same token sent
 * back in JSON was refused (412, reporting "tok"), "tok" was accepted, and a protobuf append
 * with "\ufefftok" was accepted too, while the stored command record still held the BOM.
 * Tokens are now compared exactly as sent, over JSON and protobuf alike.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeAppendAck, encodeAppendInput } from "../../src/wire/proto.js";
import { createStreams, type Lite, liteClient, startLite } from "../helpers/lite.js";

let lite: Lite;
const basin = `fence-bom-${process.pid}`;
const TOKEN = "\ufefftok";

beforeAll(async () => {
  lite = await startLite();
  await createStreams(lite, basin, ["s"]);
});

afterAll(async () => {
  await lite?.stop();
});

const json = (body: unknown) => liteClient(lite).call("POST", "/v1/streams/s/records", { basin, json: body });
const proto = (fencingToken: string) =>
  liteClient(lite).call("POST", "/v1/streams/s/records", {
    basin,
    body: encodeAppendInput({ records: [{ headers: [], body: new TextEncoder().encode("p") }], fencingToken }),
    headers: { "content-type": "application/protobuf", accept: "application/protobuf" },
  });

describe("a fencing token that starts with U+FEFF", () => {
  it("is kept whole: only the exact token passes, over JSON and protobuf", async () => {
    expect((await json({ records: [{ headers: [["", "fence"]], body: TOKEN }] })).status).toBe(200);
    expect((await json({ records: [{ body: "x" }], fencing_token: TOKEN })).status).toBe(200);
    const stripped = await json({ records: [{ body: "x" }], fencing_token: "tok" });
    expect(stripped.status).toBe(412);
    expect(stripped.json()).toEqual({ fencing_token_mismatch: TOKEN });
    const ok = await proto(TOKEN);
    expect(ok.status).toBe(200);
    expect(decodeAppendAck(ok.body).end.seqNum).toBe(3);
    expect((await proto("tok")).status).toBe(412);
    // The command record reads back with its BOM.
    const fence = (
      await liteClient(lite).call("GET", "/v1/streams/s/records", { basin, query: { seq_num: 0, count: 1 } })
    ).json().records[0];
    expect(fence.body).toBe(TOKEN);
  });
});
