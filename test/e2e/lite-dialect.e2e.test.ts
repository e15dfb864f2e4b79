/**
 * svc lite answers both dialects on one port (wire/dialect.ts): a request that names its
 * protocol headers as S2 does (`s2-basin`, `s2-format`, `s2-request-token`,
 * `s2-encryption-key`, `s2-stream-config`, `s2s/proto`) is served as its svc twin and
 * answered in S2's names; one that sends the same header under both names is 400 bad_header
 * naming both; the svc dialect is unchanged. Over HTTP/1.1 and h2c, with raw exchanges.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeFrame, type Frame, FrameParser } from "../../src/wire/framing.js";
import { decodeAppendAck, decodeReadBatch, encodeAppendInput } from "../../src/wire/proto.js";
import { type Lite, type LiteClient, liteClient, type Protocol, startLite, uniqueBasin } from "../helpers/lite.js";
import { rawExchange } from "../helpers/raw-session.js";

let lite: Lite;
beforeAll(async () => {
  lite = await startLite();
});
afterAll(async () => {
  expect(await lite.stop()).toBe(0);
});

function frames(bytes: Buffer): Frame[] {
  const p = new FrameParser();
  p.push(bytes);
  const out: Frame[] = [];
  for (let f = p.next(); f; f = p.next()) out.push(f);
  return out;
}

const records = (...bodies: string[]) => ({ records: bodies.map((body) => ({ body })) });

describe.each(["h1", "h2"] as Protocol[])("dialects over %s", (protocol) => {
  let c: LiteClient;
  beforeAll(() => {
    c = liteClient(lite, protocol);
  });
  afterAll(() => c.close());

  it("serves s2-* names as their svc twins and answers in S2's names", async () => {
    const b = uniqueBasin("s2names");
    const made = await c.call("POST", "/v1/basins", {
      headers: { "s2-request-token": "tok-1" },
      json: { basin: b, config: { create_stream_on_append: true } },
    });
    expect(made.status).toBe(201);
    expect(made.headers["s2-provision-result"]).toBe("created");
    expect(made.headers["svc-provision-result"]).toBeUndefined();
    // The same request token replays (it was read under its S2 name): 200 noop.
    const again = await c.call("POST", "/v1/basins", {
      headers: { "s2-request-token": "tok-1" },
      json: { basin: b, config: { create_stream_on_append: true } },
    });
    expect([again.status, again.headers["s2-provision-result"]]).toEqual([200, "noop"]);
    const s2 = { "s2-basin": b };
    const stream = await c.call("POST", "/v1/streams", {
      headers: { ...s2, "s2-request-token": "tok-2" },
      json: { stream: "s" },
    });
    expect([stream.status, stream.headers["s2-provision-result"], stream.headers["svc-provision-result"]]).toEqual([
      201,
      "created",
      undefined,
    ]);
    // s2-format base64 both ways: "aGk=" is stored as "hi".
    const ack = await c.call("POST", "/v1/streams/s/records", {
      headers: { ...s2, "s2-format": "base64" },
      json: records("aGk="),
    });
    expect(ack.status).toBe(200);
    const raw = await c.call("GET", "/v1/streams/s/records", { headers: s2, query: { seq_num: 0 } });
    expect(raw.json().records[0].body).toBe("hi");
    const b64 = await c.call("GET", "/v1/streams/s/records", {
      headers: { ...s2, "s2-format": "base64" },
      query: { seq_num: 0 },
    });
    expect(b64.json().records[0].body).toBe("aGk=");
    const tail = await c.call("GET", "/v1/streams/s/records/tail", { headers: s2 });
    expect(tail.json().tail.seq_num).toBe(1);
    // An ensure (PUT) of the stream through its s2-basin: noop, in S2's name only.
    const ensured = await c.call("PUT", "/v1/streams/s", { headers: s2 });
    expect([ensured.status, ensured.headers["s2-provision-result"], ensured.headers["svc-provision-result"]]).toEqual([
      200,
      "noop",
      undefined,
    ]);
  });

  it("leaves the svc dialect as it was: svc names in, svc names out", async () => {
    const b = uniqueBasin("svcnames");
    const made = await c.call("POST", "/v1/basins", { headers: { "svc-request-token": "tok-1" }, json: { basin: b } });
    expect([made.status, made.headers["svc-provision-result"], made.headers["s2-provision-result"]]).toEqual([
      201,
      "created",
      undefined,
    ]);
    const stream = await c.call("PUT", "/v1/streams/s", { basin: b });
    expect([stream.status, stream.headers["svc-provision-result"], stream.headers["s2-provision-result"]]).toEqual([
      201,
      "created",
      undefined,
    ]);
  });

  it("answers a request that names no dialect (PUT of a basin) in both names", async () => {
    const b = uniqueBasin("nonames");
    const first = await c.call("PUT", `/v1/basins/${b}`);
    expect([first.status, first.headers["svc-provision-result"], first.headers["s2-provision-result"]]).toEqual([
      201,
      "created",
      "created",
    ]);
    const second = await c.call("PUT", `/v1/basins/${b}`);
    expect([second.status, second.headers["svc-provision-result"], second.headers["s2-provision-result"]]).toEqual([
      200,
      "noop",
      "noop",
    ]);
  });

  it("refuses a header sent under both names with 400 bad_header naming both, whatever the route", async () => {
    const b = uniqueBasin("mixed");
    expect((await c.call("POST", "/v1/basins", { json: { basin: b } })).status).toBe(201);
    const cases: [string, string, string, Record<string, string>][] = [
      ["GET", "/v1/streams", "basin", { "svc-basin": b, "s2-basin": b }],
      ["GET", "/v1/streams/s/records/tail", "format", { "svc-basin": b, "svc-format": "raw", "s2-format": "raw" }],
      ["POST", "/v1/basins", "request-token", { "svc-request-token": "a", "s2-request-token": "a" }],
      ["GET", "/v1/basins", "encryption-key", { "svc-encryption-key": "x", "s2-encryption-key": "x" }],
      [
        "GET",
        "/v1/streams/s/records",
        "stream-config",
        { "svc-basin": b, "svc-stream-config": "{}", "s2-stream-config": "{}" },
      ],
    ];
    for (const [method, path, role, headers] of cases) {
      const r = await c.call(method, path, {
        headers,
        ...(method === "POST" ? { json: { basin: uniqueBasin() } } : {}),
      });
      expect(r.status, `${method} ${path}`).toBe(400);
      expect(r.json().code).toBe("bad_header");
      expect(r.json().message).toContain(`svc-${role}`);
      expect(r.json().message).toContain(`s2-${role}`);
    }
    // Different headers in different dialects are each read by their own name.
    const ok = await c.call("GET", "/v1/streams", { headers: { "svc-basin": b, "s2-format": "base64" } });
    expect(ok.status).toBe(200);
  });

  it("names headers in the request's dialect in its error messages", async () => {
    const noBasin = await c.call("GET", "/v1/streams/s/records/tail", { headers: { "s2-format": "raw" } });
    expect([noBasin.status, noBasin.json().code]).toEqual([400, "bad_header"]);
    expect(noBasin.json().message).toContain("`s2-basin`");
    expect(noBasin.json().message).not.toContain("svc-basin");
    const b = uniqueBasin("msgs");
    const long = await c.call("POST", "/v1/basins", {
      headers: { "s2-request-token": "x".repeat(37) },
      json: { basin: b },
    });
    expect([long.status, long.json().code]).toEqual([400, "bad_header"]);
    expect(long.json().message).toMatch(/^s2-request-token must be at most 36 bytes/);
    expect(
      (await c.call("POST", "/v1/basins", { json: { basin: b, config: { create_stream_on_append: true } } })).status,
    ).toBe(201);
    const format = await c.call("POST", "/v1/streams/s/records", {
      headers: { "s2-basin": b, "s2-format": "hex" },
      json: records("x"),
    });
    expect([format.status, format.json().code]).toEqual([400, "bad_header"]);
    expect(format.json().message).toContain("invalid s2-format");
    // Nothing names a dialect: the message names both.
    const neither = await c.call("GET", "/v1/streams");
    expect(neither.json().message).toContain("`svc-basin` or `s2-basin`");
  });

  it("routes by a {basin}. Host prefix in either dialect", async () => {
    if (protocol === "h2") return; // the h2c client sets :authority from the URL
    const b = uniqueBasin("hostpfx");
    expect((await c.call("POST", "/v1/basins", { json: { basin: b } })).status).toBe(201);
    const host = { host: `${b}.localhost:${lite.port}` };
    const made = await c.call("POST", "/v1/streams", {
      headers: { ...host, "s2-request-token": "t" },
      json: { stream: "h" },
    });
    expect([made.status, made.headers["s2-provision-result"]]).toEqual([201, "created"]);
    expect(
      (
        await c.call("POST", "/v1/streams/h/records", {
          headers: { ...host, "s2-format": "base64" },
          json: records("aGk="),
        })
      ).status,
    ).toBe(200);
    const read = await c.call("GET", "/v1/streams/h/records", {
      headers: { ...host, "svc-format": "base64" },
      query: { seq_num: 0 },
    });
    expect(read.json().records[0].body).toBe("aGk=");
  });

  it("runs s2s/proto sessions and answers them as s2s/proto; SSE with s2-format", async () => {
    const b = uniqueBasin("s2s");
    expect(
      (await c.call("POST", "/v1/basins", { json: { basin: b, config: { create_stream_on_append: true } } })).status,
    ).toBe(201);
    const headers = { authorization: `Bearer ${lite.token}`, "s2-basin": b };
    const append = await rawExchange(lite.url, protocol, {
      method: "POST",
      path: "/v1/streams/x/records",
      headers: { ...headers, "content-type": "s2s/proto" },
      duplex: true,
    });
    expect([append.status, append.headers["content-type"]]).toEqual([200, "s2s/proto"]);
    append.write(
      encodeFrame(
        encodeAppendInput({
          records: [
            { headers: [], body: Buffer.from("one") },
            { headers: [], body: Buffer.from([0xff]) },
          ],
        }),
      ),
    );
    append.end();
    const acks = frames(await append.done);
    expect(acks).toHaveLength(1);
    expect(decodeAppendAck(acks[0]!.payload).end.seqNum).toBe(2);
    const read = await rawExchange(lite.url, protocol, {
      method: "GET",
      path: "/v1/streams/x/records?seq_num=0&count=2",
      headers: { ...headers, "content-type": "s2s/proto" },
    });
    expect([read.status, read.headers["content-type"]]).toEqual([200, "s2s/proto"]);
    const batches = frames(await read.done).map((f) => decodeReadBatch(f.payload));
    expect(batches.flatMap((x) => x.records.map((r) => Buffer.from(r.body).toString("hex")))).toEqual(["6f6e65", "ff"]);
    const sse = await rawExchange(lite.url, protocol, {
      method: "GET",
      path: "/v1/streams/x/records?seq_num=0&count=2",
      headers: { ...headers, accept: "text/event-stream", "s2-format": "base64" },
    });
    expect([sse.status, sse.headers["content-type"]]).toEqual([200, "text/event-stream"]);
    const text = (await sse.done).toString("utf8");
    expect(text).toContain('"body":"b25l"');
    expect(text).toContain('"body":"/w=="');
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
  });

  it("keeps svc/proto sessions answered as svc/proto", async () => {
    const b = uniqueBasin("svcproto");
    expect(
      (await c.call("POST", "/v1/basins", { json: { basin: b, config: { create_stream_on_append: true } } })).status,
    ).toBe(201);
    const append = await rawExchange(lite.url, protocol, {
      method: "POST",
      path: "/v1/streams/x/records",
      headers: { authorization: `Bearer ${lite.token}`, "svc-basin": b, "content-type": "svc/proto" },
      duplex: true,
    });
    expect([append.status, append.headers["content-type"]]).toEqual([200, "svc/proto"]);
    append.end();
    expect(frames(await append.done)).toHaveLength(0);
  });
});
