/**
 * Bugs, against a real svc lite:
 * - a client timestamp above 2^53 − 1 got three different answers for the same value:
 *   400 bad_json (JSON), 422 (protobuf), 400 bad_frame (session). It is now 422 `invalid`
 *   everywhere (svc refuses u64 values it cannot carry exactly; it never rounds them);
 * - a raw-format JSON body with a lone surrogate ("\ud800") was stored as EF BF BD: it is
 *   now 400 bad_json and nothing is stored;
 * - protobuf with a wrong wire type for a known field (`08 01`: field 1 as a varint) was
 *   read as an empty batch (422 "empty batch"): it is now 400 bad_proto.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeTerminal, encodeFrame, FrameParser } from "../../src/wire/framing.js";
import { type Lite, type LiteClient, liteClient, startLite, uniqueBasin } from "../helpers/lite.js";
import { rawExchange } from "../helpers/raw-session.js";

let lite: Lite;
let c: LiteClient;
let basin: string;
beforeAll(async () => {
  lite = await startLite({ inMemory: true });
  c = liteClient(lite);
  basin = uniqueBasin("edges");
  expect(
    (
      await c.call("POST", "/v1/basins", {
        json: {
          basin,
          config: {
            create_stream_on_append: true,
            default_stream_config: { timestamping: { mode: "client-require" } },
          },
        },
      })
    ).status,
  ).toBe(201);
});
afterAll(async () => {
  await lite?.stop();
});

/** AppendInput { records: [{ timestamp: 2^53, body: "x" }] }, hand-encoded. */
const BIG_TS_INPUT = Buffer.from([0x0a, 0x0c, 0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10, 0x1a, 0x01, 0x78]);
const tail = async (s: string) =>
  (await c.call("GET", `/v1/streams/${s}/records/tail`, { basin })).json().tail?.seq_num;

describe("number and text edge cases have one clear answer", () => {
  it("a timestamp of 2^53 is 422 invalid in JSON, in protobuf and in a session", async () => {
    const json = await c.call("POST", "/v1/streams/ts/records", {
      basin,
      body: '{"records":[{"timestamp":9007199254740992,"body":"x"}]}',
      headers: { "content-type": "application/json" },
    });
    expect([json.status, json.json().code]).toEqual([422, "invalid"]);
    const proto = await c.call("POST", "/v1/streams/ts/records", {
      basin,
      body: BIG_TS_INPUT,
      headers: { "content-type": "application/protobuf" },
    });
    expect([proto.status, proto.json().code]).toEqual([422, "invalid"]);
    const ex = await rawExchange(lite.url, "h2", {
      method: "POST",
      path: "/v1/streams/ts/records",
      duplex: true,
      headers: { authorization: `Bearer ${lite.token}`, "svc-basin": basin, "content-type": "svc/proto" },
    });
    ex.write(encodeFrame(BIG_TS_INPUT));
    ex.end();
    const p = new FrameParser();
    p.push(await ex.done);
    const f = p.next()!;
    expect(f.terminal).toBe(true);
    expect(decodeTerminal(f.payload)).toMatchObject({ status: 422, body: { code: "invalid" } });
  });

  it("a lone surrogate in a raw body is 400 bad_json and nothing is stored", async () => {
    const r = await c.call("POST", "/v1/streams/sur/records", {
      basin,
      body: '{"records":[{"timestamp":1,"body":"\\ud800"}]}',
      headers: { "content-type": "application/json" },
    });
    expect([r.status, r.json().code]).toEqual([400, "bad_json"]);
    const h = await c.call("POST", "/v1/streams/sur/records", {
      basin,
      body: '{"records":[{"timestamp":1,"headers":[["k","\\udc00"]],"body":"x"}]}',
      headers: { "content-type": "application/json" },
    });
    expect([h.status, h.json().code]).toEqual([400, "bad_json"]);
    expect(await tail("sur")).toBeUndefined();
  });

  it("protobuf with a wrong wire type (08 01) is 400 bad_proto", async () => {
    const r = await c.call("POST", "/v1/streams/wt/records", {
      basin,
      body: Buffer.from([0x08, 0x01]),
      headers: { "content-type": "application/protobuf" },
    });
    expect([r.status, r.json().code]).toEqual([400, "bad_proto"]);
  });
});
