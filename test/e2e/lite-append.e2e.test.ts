/**
 * svc lite, unary append (B7): protocol.md §8 and the conformance checklist §12 items 20–32,
 * in JSON raw, JSON base64 and protobuf, over HTTP/1.1 and h2c.
 */
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppendInput, AppendRecord } from "../../src/types.js";
import { decodeAppendAck, decodeReadBatch, encodeAppendInput } from "../../src/wire/proto.js";
import {
  eventually,
  type Lite,
  type LiteClient,
  liteClient,
  type Reply,
  startLite,
  uniqueBasin,
} from "../helpers/lite.js";

let lite: Lite;
beforeAll(async () => {
  lite = await startLite({ env: { SVC_LITE_SWEEP_MS: "200" } });
});
afterAll(async () => {
  expect(await lite.stop()).toBe(0);
});

type Format = "raw" | "base64" | "protobuf";
const FORMATS: Format[] = ["raw", "base64", "protobuf"];
const te = new TextEncoder();
const b64 = (s: string | Uint8Array) => Buffer.from(typeof s === "string" ? te.encode(s) : s).toString("base64");

interface Rec {
  body?: string | Uint8Array;
  headers?: [string | Uint8Array, string | Uint8Array][];
  timestamp?: number;
}
interface Opts {
  match?: number;
  token?: string;
}

const bytes = (v: string | Uint8Array) => (typeof v === "string" ? te.encode(v) : v);

/** Appends in one of the three request formats; acks are read as JSON or protobuf to match. */
async function append(
  c: LiteClient,
  basin: string,
  stream: string,
  recs: Rec[],
  format: Format,
  opts: Opts = {},
): Promise<Reply & { ack?: any }> {
  let r: Reply;
  if (format === "protobuf") {
    const input: AppendInput = {
      records: recs.map(
        (x): AppendRecord => ({
          body: bytes(x.body ?? ""),
          headers: (x.headers ?? []).map(([n, v]) => ({ name: bytes(n), value: bytes(v) })),
          ...(x.timestamp !== undefined ? { timestamp: x.timestamp } : {}),
        }),
      ),
      ...(opts.match !== undefined ? { matchSeqNum: opts.match } : {}),
      ...(opts.token !== undefined ? { fencingToken: opts.token } : {}),
    };
    r = await c.call("POST", `/v1/streams/${encodeURIComponent(stream)}/records`, {
      basin,
      body: encodeAppendInput(input),
      headers: { "content-type": "application/protobuf", accept: "application/protobuf" },
    });
    if (r.status !== 200) return r;
    const ack = decodeAppendAck(r.body);
    const pos = (p: { seqNum: number; timestamp: number }) => ({ seq_num: p.seqNum, timestamp: p.timestamp });
    expect(r.headers["content-type"]).toBe("application/protobuf");
    return { ...r, ack: { start: pos(ack.start), end: pos(ack.end), tail: pos(ack.tail) } };
  }
  const enc = (v: string | Uint8Array) =>
    format === "base64" ? b64(v) : typeof v === "string" ? v : Buffer.from(v).toString("utf8");
  const json: Record<string, unknown> = {
    records: recs.map((x) => ({
      ...(x.body !== undefined ? { body: enc(x.body) } : {}),
      ...(x.headers ? { headers: x.headers.map(([n, v]) => [enc(n), enc(v)]) } : {}),
      ...(x.timestamp !== undefined ? { timestamp: x.timestamp } : {}),
    })),
  };
  if (opts.match !== undefined) json.match_seq_num = opts.match;
  if (opts.token !== undefined) json.fencing_token = opts.token;
  r = await c.call("POST", `/v1/streams/${encodeURIComponent(stream)}/records`, {
    basin,
    json,
    headers: { "svc-format": format },
  });
  return r.status === 200 ? { ...r, ack: r.json() } : r;
}

async function readAll(c: LiteClient, basin: string, stream: string, format: "raw" | "base64" = "raw"): Promise<any[]> {
  const r = await c.call("GET", `/v1/streams/${encodeURIComponent(stream)}/records`, {
    basin,
    query: { seq_num: 0 },
    headers: { "svc-format": format },
  });
  if (r.status === 416) return [];
  expect(r.status).toBe(200);
  return r.json().records;
}

describe.each(["h1", "h2"] as const)("append over %s", (protocol) => {
  let c: LiteClient;
  let basin: string;
  let n = 0;
  const fresh = async (config?: Record<string, unknown>): Promise<string> => {
    const s = `s${++n}`;
    const r = await c.call("POST", "/v1/streams", { basin, json: config ? { stream: s, config } : { stream: s } });
    expect(r.status).toBe(201);
    return s;
  };
  beforeAll(async () => {
    c = liteClient(lite, protocol);
    basin = uniqueBasin();
    expect((await c.call("POST", "/v1/basins", { json: { basin } })).status).toBe(201);
  });
  afterAll(() => c.close());

  it.each(FORMATS)("20: one record on an empty stream (%s)", async (format) => {
    const s = await fresh();
    const r = await append(c, basin, s, [{ body: "hi" }], format);
    expect(r.status).toBe(200);
    expect(r.ack.start.seq_num).toBe(0);
    expect(r.ack.end.seq_num).toBe(1);
    expect(r.ack.tail.seq_num).toBeGreaterThanOrEqual(1);
    expect(r.ack.start.timestamp).toBe(r.ack.end.timestamp);
    const again = await append(c, basin, s, [{ body: "a" }, { body: "b" }], format);
    expect([again.ack.start.seq_num, again.ack.end.seq_num]).toEqual([1, 3]);
    expect((await readAll(c, basin, s)).map((x) => x.body)).toEqual(["hi", "a", "b"]);
  });

  it("21: batch sizes and body shape", async () => {
    const s = await fresh();
    const many = Array.from({ length: 1000 }, (_, i) => ({ body: `r${i}` }));
    for (const format of FORMATS) expect((await append(c, basin, s, many, format)).status).toBe(200);
    for (const format of FORMATS) {
      const r = await append(c, basin, s, [...many, { body: "x" }], format);
      expect([r.status, r.json().code]).toEqual([422, "invalid"]);
      const empty = await append(c, basin, s, [], format);
      expect([empty.status, empty.json().code]).toEqual([422, "invalid"]);
    }
    const noRecords = await c.call("POST", `/v1/streams/${s}/records`, { basin, json: {} });
    expect([noRecords.status, noRecords.json().code]).toEqual([400, "bad_json"]);
    const noType = await c.call("POST", `/v1/streams/${s}/records`, {
      basin,
      body: JSON.stringify({ records: [{ body: "x" }] }),
    });
    expect([noType.status, noType.json().code]).toEqual([400, "bad_json"]);
    const nullBody = await c.call("POST", `/v1/streams/${s}/records`, { basin, json: { records: [{ body: null }] } });
    expect([nullBody.status, nullBody.json().code]).toEqual([400, "bad_json"]);
    const syntax = await c.call("POST", `/v1/streams/${s}/records`, {
      basin,
      body: "{",
      headers: { "content-type": "application/json" },
    });
    expect([syntax.status, syntax.json().code]).toEqual([400, "bad_json"]);
    expect((await c.call("GET", `/v1/streams/${s}/records/tail`, { basin })).json().tail.seq_num).toBe(3000);
  });

  it.each(FORMATS)("22: metered size exactly 1 MiB passes, one byte more is invalid (%s)", async (format) => {
    const s = await fresh();
    const max = 1024 * 1024;
    // Two records: 8 + 2 + 1 + 1 (one header) + body, and 8 + body.
    const first = { headers: [["k", "v"]] as [string, string][], body: "a".repeat(1000) };
    const restBody = max - (8 + 2 + 2 + 1000) - 8;
    expect((await append(c, basin, s, [first, { body: "b".repeat(restBody) }], format)).status).toBe(200);
    const over = await append(c, basin, s, [first, { body: "b".repeat(restBody + 1) }], format);
    expect([over.status, over.json().code]).toEqual([422, "invalid"]);
    const single = await append(c, basin, s, [{ body: "c".repeat(max - 7) }], format);
    expect([single.status, single.json().code]).toEqual([422, "invalid"]);
    expect((await c.call("GET", `/v1/streams/${s}/records/tail`, { basin })).json().tail.seq_num).toBe(2);
  });

  it("23–24: svc-format base64 and raw, strict base64, lossy UTF-8", async () => {
    const s = await fresh();
    const r = await c.call("POST", `/v1/streams/${s}/records`, {
      basin,
      headers: { "svc-format": "base64" },
      json: { records: [{ body: "aGk=" }] },
    });
    expect(r.status).toBe(200);
    expect((await readAll(c, basin, s))[0].body).toBe("hi");
    for (const bad of ["a", "aGk", "@@@@", "aGk=\n", "aGl="]) {
      const e = await c.call("POST", `/v1/streams/${s}/records`, {
        basin,
        headers: { "svc-format": "base64" },
        json: { records: [{ body: bad }] },
      });
      expect([e.status, e.json().code], bad).toEqual([422, "invalid"]);
    }
    const hex = await c.call("POST", `/v1/streams/${s}/records`, {
      basin,
      headers: { "svc-format": "hex" },
      json: { records: [{ body: "6869" }] },
    });
    expect([hex.status, hex.json().code]).toEqual([400, "bad_header"]);
    const legacy = await c.call("POST", `/v1/streams/${s}/records`, {
      basin,
      headers: { "svc-format": protocol === "h1" ? " json-binsafe " : "json-binsafe" },
      json: { records: [{ body: "//4=" }] },
    });
    expect(legacy.status).toBe(200);
    const raw = await readAll(c, basin, s, "raw");
    expect(raw[1].body).toBe("\ufffd");
    const back = await readAll(c, basin, s, "base64");
    expect(back[1].body).toBe("//4=");
    expect(back[0].body).toBe("aGk=");
  });

  it("25: header rules and command recognition", async () => {
    const s = await fresh();
    for (const format of FORMATS) {
      const unknown = await append(c, basin, s, [{ headers: [["", "x"]] }], format);
      expect([unknown.status, unknown.json().code]).toEqual([422, "invalid"]);
      const mixed = await append(
        c,
        basin,
        s,
        [
          {
            headers: [
              ["", "fence"],
              ["k", "v"],
            ],
          },
        ],
        format,
      );
      expect([mixed.status, mixed.json().code]).toEqual([422, "invalid"]);
      expect((await append(c, basin, s, [{ headers: [["k", "v"]], body: "ok" }], format)).status).toBe(200);
    }
    for (const header of [["k"], ["k", "v", "w"], "kv", [1, 2]]) {
      const r = await c.call("POST", `/v1/streams/${s}/records`, { basin, json: { records: [{ headers: [header] }] } });
      expect([r.status, r.json().code]).toEqual([400, "bad_json"]);
    }
    const recs = await readAll(c, basin, s);
    expect(recs.map((x) => x.headers)).toEqual(Array(3).fill([["k", "v"]]));
  });

  it.each(FORMATS)("26–29: fencing tokens and match_seq_num (%s)", async (format) => {
    const s = await fresh();
    expect((await append(c, basin, s, [{ headers: [["", "fence"]], body: "tok" }], format)).status).toBe(200);
    const wrong = await append(c, basin, s, [{ body: "x" }], format, { token: "other" });
    expect([wrong.status, wrong.json()]).toEqual([412, { fencing_token_mismatch: "tok" }]);
    expect((await append(c, basin, s, [{ body: "x" }], format, { token: "tok" })).status).toBe(200);
    expect((await append(c, basin, s, [{ body: "y" }], format)).status).toBe(200);
    const long = await append(c, basin, s, [{ headers: [["", "fence"]], body: "t".repeat(37) }], format);
    expect([long.status, long.json().code]).toEqual([422, "invalid"]);
    const tooLong = await append(c, basin, s, [{ body: "x" }], format, { token: "t".repeat(37) });
    expect(tooLong.status).toBe(format === "protobuf" ? 422 : 400);
    // Check the old token and install a new one in one append (§8.5).
    expect((await append(c, basin, s, [{ headers: [["", "fence"]], body: "" }], format, { token: "tok" })).status).toBe(
      200,
    );
    expect((await append(c, basin, s, [{ body: "z" }], format, { token: "" })).status).toBe(200);
    // 28: match_seq_num
    const tail = (await c.call("GET", `/v1/streams/${s}/records/tail`, { basin })).json().tail.seq_num;
    expect(tail).toBe(5);
    expect((await append(c, basin, s, [{ body: "m" }], format, { match: tail })).status).toBe(200);
    const off = await append(c, basin, s, [{ body: "m" }], format, { match: tail });
    expect([off.status, off.json()]).toEqual([412, { seq_num_mismatch: tail + 1 }]);
    // 29: both fail → the fencing mismatch wins.
    await append(c, basin, s, [{ headers: [["", "fence"]], body: "new" }], format);
    const both = await append(c, basin, s, [{ body: "m" }], format, { match: 0, token: "bad" });
    expect([both.status, both.json()]).toEqual([412, { fencing_token_mismatch: "new" }]);
    expect((await c.call("GET", `/v1/streams/${s}/records/tail`, { basin })).json().tail.seq_num).toBe(tail + 2);
    const recs = await readAll(c, basin, s);
    expect(recs[0]).toMatchObject({ seq_num: 0, headers: [["", "fence"]], body: "tok" });
    expect(recs[3]).toMatchObject({ headers: [["", "fence"]] });
    expect(recs[3].body).toBeUndefined(); // an empty fence body is omitted
  });

  it("30: timestamping modes, capping and monotonicity", async () => {
    const future = Date.now() + 3_600_000;
    const req = await fresh({ timestamping: { mode: "client-require" } });
    const missing = await append(c, basin, req, [{ body: "x", timestamp: 5 }, { body: "y" }], "raw");
    expect([missing.status, missing.json().code]).toEqual([422, "invalid"]);
    expect((await append(c, basin, req, [{ body: "x", timestamp: 0 }], "protobuf")).ack.start.timestamp).toBe(0);

    const prefer = await fresh();
    const capped = await append(c, basin, prefer, [{ body: "f", timestamp: future }], "raw");
    expect(capped.ack.start.timestamp).toBeLessThanOrEqual(Date.now());
    const lower = await append(
      c,
      basin,
      prefer,
      [
        { body: "l", timestamp: 1000 },
        { body: "m", timestamp: 5 },
      ],
      "base64",
    );
    expect(lower.ack.start.timestamp).toBe(capped.ack.start.timestamp);
    expect(lower.ack.end.timestamp).toBe(capped.ack.start.timestamp);

    const uncapped = await fresh({ timestamping: { uncapped: true } });
    const kept = await append(
      c,
      basin,
      uncapped,
      [
        { body: "f", timestamp: future },
        { body: "g", timestamp: 7 },
      ],
      "protobuf",
    );
    expect([kept.ack.start.timestamp, kept.ack.end.timestamp]).toEqual([future, future]);

    const arrival = await fresh({ timestamping: { mode: "arrival" } });
    const before = Date.now();
    const arr = await append(c, basin, arrival, [{ body: "a", timestamp: 42 }], "raw");
    expect(arr.ack.start.timestamp).toBeGreaterThanOrEqual(before);
    const recs = await readAll(c, basin, prefer);
    for (let i = 1; i < recs.length; i++) expect(recs[i].timestamp).toBeGreaterThanOrEqual(recs[i - 1].timestamp);
  });

  it("31: trim commands take effect asynchronously and only move forward", async () => {
    const s = await fresh();
    await append(c, basin, s, [{ body: "0" }, { body: "1" }, { body: "2" }, { body: "3" }], "raw");
    const trim = await c.call("POST", `/v1/streams/${s}/records`, {
      basin,
      headers: { "svc-format": "base64" },
      json: { records: [{ headers: [["", b64("trim")]], body: "AAAAAAAAAAI=" }] },
    });
    expect(trim.status).toBe(200);
    await eventually(async () => (await readAll(c, basin, s))[0]?.seq_num >= 2);
    for (const size of [7, 9]) {
      const bad = await append(c, basin, s, [{ headers: [["", "trim"]], body: new Uint8Array(size) }], "protobuf");
      expect([bad.status, bad.json().code]).toEqual([422, "invalid"]);
    }
    const lower = await append(c, basin, s, [{ headers: [["", "trim"]], body: new Uint8Array(8) }], "protobuf");
    expect(lower.status).toBe(200);
    const recs = await readAll(c, basin, s);
    expect(recs.map((r) => r.seq_num)).toEqual([2, 3, 4, 5]);
    expect(recs[2].headers).toEqual([["", "trim"]]);
  });

  it("32: protobuf ack, bad_proto, and JSON errors for protobuf requests", async () => {
    const s = await fresh();
    const ok = await append(c, basin, s, [{ body: "p" }], "protobuf");
    expect(ok.ack.end.seq_num).toBe(1);
    // A JSON request may ask for a protobuf response, and the reverse.
    const mixed = await c.call("POST", `/v1/streams/${s}/records`, {
      basin,
      json: { records: [{ body: "q" }] },
      headers: { accept: "application/protobuf" },
    });
    expect(decodeAppendAck(mixed.body).end.seqNum).toBe(2);
    const garbage = await c.call("POST", `/v1/streams/${s}/records`, {
      basin,
      body: new Uint8Array([0x0a, 0xff, 0xff, 0xff]),
      headers: { "content-type": "application/protobuf", accept: "application/protobuf" },
    });
    expect(garbage.headers["content-type"]).toMatch(/application\/json/);
    expect([garbage.status, garbage.json().code]).toEqual([400, "bad_proto"]);
    const missing = await c.call("POST", "/v1/streams/nope/records", {
      basin,
      body: encodeAppendInput({ records: [{ headers: [], body: new Uint8Array() }] }),
      headers: { "content-type": "application/x-protobuf", accept: "application/protobuf" },
    });
    expect([missing.status, missing.json().code]).toEqual([404, "stream_not_found"]);
  });

  it("accepts gzip request bodies and compresses large responses", async () => {
    const s = await fresh();
    const body = gzipSync(
      JSON.stringify({ records: Array.from({ length: 50 }, (_, i) => ({ body: `line ${i} `.repeat(10) })) }),
    );
    const r = await c.call("POST", `/v1/streams/${s}/records`, {
      basin,
      body,
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
    });
    expect(r.status).toBe(200);
    const bad = await c.call("POST", `/v1/streams/${s}/records`, {
      basin,
      body: "not gzip",
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
    });
    expect(bad.status).toBe(400);
    const read = await c.call("GET", `/v1/streams/${s}/records`, {
      basin,
      query: { seq_num: 0 },
      headers: { "accept-encoding": "gzip" },
    });
    expect(read.headers["content-encoding"]).toBe("gzip");
    const small = await c.call("GET", `/v1/streams/${s}/records/tail`, {
      basin,
      headers: { "accept-encoding": "zstd, gzip" },
    });
    expect(small.headers["content-encoding"]).toBeUndefined();
    const proto = await c.call("GET", `/v1/streams/${s}/records`, {
      basin,
      query: { seq_num: 0 },
      headers: { accept: "application/protobuf" },
    });
    expect(decodeReadBatch(proto.body).records).toHaveLength(50);
  });
});
