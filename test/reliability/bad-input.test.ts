/**
 * Bad input against a running svc lite (docs/design/reliability.md, "Bad input"): fast-check
 * generates malformed JSON and protobuf append bodies, session frames, names, query parameters,
 * base64, header values and command records, all invalid by construction. Oracle for every case: a
 * 4xx with a JSON body whose code is in the catalogue (or a terminal frame saying so), answered
 * within 2 s, and the server alive. The digest of every stream (tail, first seq, contents, fencing
 * token) and the basin/stream listing are unchanged, checked every 100 cases and at the end; the
 * server log holds no unhandled rejection or internal error. Zip bombs and an announced 16 MiB
 * frame are refused with the server's peak RSS growing by < 10 MiB. CI: 500 runs per property (≈
 * 4,500 requests); extended: 10,000 (BAD_INPUT_RUNS overrides). `SEED=<seed> npx vitest run
 * test/reliability/bad-input.test.ts` replays.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SERVER_CODES } from "../../src/errors.js";
import { compress } from "../../src/wire/compression.js";
import { decodeTerminal, encodeFrame, FrameParser } from "../../src/wire/framing.js";
import { encodeAppendInput } from "../../src/wire/proto.js";
import { type Lite, type LiteClient, liteClient, type Reply, startLite } from "../helpers/lite.js";
import { rawExchange } from "../helpers/raw-session.js";
import { suiteSeed, tierCount } from "../helpers/tier.js";

const SEED = suiteSeed("bad-input");
const RUNS = tierCount(500, 10_000, "BAD_INPUT_RUNS");
const basin = `badinput-${process.pid}`;
const STREAMS = ["victim", "fenced"];
let lite: Lite;
let c: LiteClient;
let cases = 0;
const perTarget = new Map<string, number>();

const rp = (seed: number) => ({ seed, numRuns: RUNS, endOnFailure: true });

async function digest(): Promise<string> {
  const h = createHash("sha256");
  h.update(
    JSON.stringify(
      (await c.call("GET", "/v1/basins"))
        .json()
        .basins.map((b: { name: string }) => b.name)
        .sort(),
    ),
  );
  h.update(
    JSON.stringify(
      (await c.call("GET", "/v1/streams", { basin }))
        .json()
        .streams.map((s: { name: string }) => s.name)
        .sort(),
    ),
  );
  for (const s of STREAMS) {
    const tail = (await c.call("GET", `/v1/streams/${s}/records/tail`, { basin })).json().tail.seq_num;
    const r = await c.call("GET", `/v1/streams/${s}/records`, {
      basin,
      query: { seq_num: 0, count: 1000 },
      headers: { "svc-format": "base64" },
    });
    // A 412 names the current token without changing anything.
    const t = await c.call("POST", `/v1/streams/${s}/records`, {
      basin,
      json: { records: [{ body: "probe" }], fencing_token: "digest-probe-not-a-token" },
    });
    h.update(`${s}|${tail}|${r.text()}|${t.status}|${t.text()}`);
  }
  return h.digest("hex");
}

function oracle(
  target: string,
  r: { status: number; body: Buffer; ms: number },
  allowed: number[] = [400, 404, 405, 411, 412, 413, 415, 416, 422],
): void {
  cases++;
  perTarget.set(target, (perTarget.get(target) ?? 0) + 1);
  const where = `${target} (SEED=${SEED})`;
  expect(r.ms, `${where}: answered within 2 s`).toBeLessThan(2000);
  expect(allowed, `${where}: status ${r.status} ${r.body.toString().slice(0, 200)}`).toContain(r.status);
  const j = JSON.parse(r.body.toString("utf8"));
  if (r.status === 412)
    expect(
      Object.keys(j).some((k) => k === "seq_num_mismatch" || k === "fencing_token_mismatch"),
      where,
    ).toBe(true);
  else if (r.status === 416) expect(j.tail, where).toBeDefined();
  else expect(Object.keys(SERVER_CODES), `${where}: code ${j.code}`).toContain(j.code);
}

async function timed(p: Promise<Reply>): Promise<{ status: number; body: Buffer; ms: number }> {
  const t = Date.now();
  const r = await p;
  return { status: r.status, body: r.body, ms: Date.now() - t };
}

let before = "";
async function checkpoint(): Promise<void> {
  if (cases % 100 !== 0) return;
  expect((await c.call("GET", "/health")).status).toBe(200);
  expect(await digest(), `SEED=${SEED}: stored data changed after ${cases} cases`).toBe(before);
}

const append = (stream: string, body: string | Uint8Array, headers: Record<string, string> = {}) =>
  timed(
    c.call("POST", `/v1/streams/${stream}/records`, {
      basin,
      body,
      headers: { "content-type": "application/json", ...headers },
    }),
  );

// --- generators: every value is invalid by construction -------------------------------------
const validBody = JSON.stringify({ records: [{ body: "ok", headers: [["h", "v"]] }] });
const badJsonText = fc.oneof(
  fc.nat(validBody.length - 1).map((n) => validBody.slice(0, n)), // truncated
  fc.string().map((s) => `{"records": ${s}`),
  fc.constantFrom(
    "[",
    "{",
    "nul",
    '{"records":[{"body":"a"}],}',
    "\u0000",
    `${"[".repeat(10_000)}${"]".repeat(10_000)}`,
  ),
);
const wrongType = fc.oneof(
  fc.integer(),
  fc.string(),
  fc.boolean(),
  fc.constant(null),
  fc.dictionary(fc.string(), fc.integer()),
);
const badJsonShape = fc.oneof(
  wrongType.map((records) => ({ records })),
  fc.constant({ records: [] }),
  fc.integer({ min: 1001, max: 1100 }).map((n) => ({ records: Array.from({ length: n }, () => ({ body: "" })) })),
  wrongType.filter((b) => typeof b !== "string").map((body) => ({ records: [{ body }] })),
  fc
    .oneof(
      fc.string(),
      fc.integer(),
      fc.array(fc.string(), { maxLength: 1 }),
      fc.array(fc.string(), { minLength: 3, maxLength: 4 }),
    )
    .map((h) => ({ records: [{ body: "x", headers: [h] }] })),
  fc
    .oneof(fc.constant(-1), fc.constant(1.5), fc.constant("7"), fc.constant(2 ** 53 + 2), fc.constant(1e300))
    .map((m) => ({ records: [{ body: "x" }], match_seq_num: m })),
  fc
    .oneof(fc.constant(-1), fc.constant(1.5), fc.constant("7"), fc.constant(2 ** 64))
    .map((t) => ({ records: [{ body: "x", timestamp: t }] })),
  fc
    .string({ minLength: 37, maxLength: 60 })
    .map((t) => ({ records: [{ body: "x" }], fencing_token: `${"t".repeat(37)}${t}` })),
  fc.constant({ records: [{ body: "x".repeat(1024 * 1024 + 1) }] }),
);
// Command records: an empty header name with another header, an unknown op, a 37-byte
// token, a trim payload of the wrong size.
const badCommand = fc.oneof(
  fc.constant({
    records: [
      {
        headers: [
          ["", "fence"],
          ["x", "y"],
        ],
        body: "t",
      },
    ],
  }),
  fc
    .string({ minLength: 1, maxLength: 10 })
    .filter((op) => op !== "fence" && op !== "trim")
    .map((op) => ({ records: [{ headers: [["", op]], body: "" }] })),
  fc.constant({ records: [{ headers: [["", "fence"]], body: "f".repeat(37) }] }),
  fc
    .constantFrom(0, 7, 9)
    .map((n) => ({ records: [{ headers: [["", "dHJpbQ=="]], body: Buffer.alloc(n).toString("base64") }] })),
);
const badBase64 = fc.oneof(
  fc.constantFrom("@@@@", "abc", "ab=c", "a===", "-_-_", " YQ== ", "YQ"),
  fc.string({ minLength: 1, maxLength: 12 }).filter((s) => /[^A-Za-z0-9+/=]/.test(s)),
);
// Proto: a truncated varint, a wrong wire type for field 1, a length beyond the body.
const badProto = fc.oneof(
  fc.uint8Array({ maxLength: 8 }).map((b) => Uint8Array.of(...b, 0x80)),
  fc.nat(255).map((v) => Uint8Array.of(0x08, v & 0x7f)),
  fc.integer({ min: 10, max: 1 << 20 }).map((n) => {
    const b = Buffer.alloc(8);
    b[0] = 0x0a;
    let i = 1;
    let x = n;
    while (x >= 0x80) {
      b[i++] = (x & 0x7f) | 0x80;
      x >>>= 7;
    }
    b[i++] = x;
    return b.subarray(0, i + 1);
  }),
  fc.constant(new Uint8Array()),
);
const badBasinName = fc.oneof(
  fc.constantFrom(
    "short",
    "a".repeat(49),
    "UPPERCASE-NAME",
    "under_score",
    "-leading-dash",
    "trailing-dash-",
    "caf\u00e9-basin",
    "a%2Fb-basin-x",
  ),
  fc.string({ minLength: 8, maxLength: 20 }).filter((s) => /[^a-z0-9-]/.test(s)),
);
// NUL is allowed in stream names (protocol.md: "any UTF-8"); a lone surrogate is not UTF-8.
const badStreamName = fc.constantFrom("", "x".repeat(513), ".", "..", "\udc80", `a\udc80b`);
const badQuery = fc.record({
  key: fc.constantFrom("seq_num", "count", "bytes", "wait", "timestamp", "tail_offset", "clamp", "until"),
  value: fc.oneof(
    fc.constantFrom(
      "-1",
      "1.5",
      "abc",
      "18446744073709551616",
      "99999999999999999999999",
      "",
      "0x10",
      " 1",
      "NaN",
      "yes",
    ),
    fc.string({ minLength: 1, maxLength: 5 }).filter((s) => !/^\d+$/.test(s) && s !== "true" && s !== "false"),
  ),
});

describe("bad input: every malformed request gets a JSON 4xx and changes nothing", () => {
  beforeAll(async () => {
    lite = await startLite();
    c = liteClient(lite);
    expect((await c.call("POST", "/v1/basins", { json: { basin } })).status).toBe(201);
    for (const s of STREAMS)
      expect((await c.call("POST", "/v1/streams", { basin, json: { stream: s } })).status).toBe(201);
    const r = await c.call("POST", "/v1/streams/victim/records", {
      basin,
      json: { records: Array.from({ length: 50 }, (_, i) => ({ body: `r${i}`, headers: [["k", `v${i}`]] })) },
    });
    expect(r.status).toBe(200);
    expect(
      (
        await c.call("POST", "/v1/streams/fenced/records", {
          basin,
          json: { records: [{ headers: [["", "fence"]], body: "tok" }, { body: "d" }] },
        })
      ).status,
    ).toBe(200);
    before = await digest();
  });
  afterAll(async () => {
    const log = lite?.stderr() ?? "";
    await lite?.stop();
    console.log(`bad-input SEED=${SEED}: ${cases} cases, ${[...perTarget].map(([k, n]) => `${k} ${n}`).join(", ")}`);
    expect(log).not.toMatch(/unhandled|internal error|→ 5\d\d/i);
  });

  it("JSON append bodies: syntax, shapes, numbers, sizes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          badJsonText,
          badJsonShape.map((b) => JSON.stringify(b)),
        ),
        fc.constantFrom("victim", "fenced"),
        async (body, s) => {
          oracle("json", await append(s, body));
          await checkpoint();
        },
      ),
      rp(SEED),
    );
  }, 300_000);

  it("command records and base64", async () => {
    await fc.assert(
      fc.asyncProperty(badCommand, async (b) => {
        oracle("command", await append("victim", JSON.stringify(b), { "svc-format": "base64" }));
        oracle(
          "command-raw",
          await append(
            "victim",
            JSON.stringify({
              records: b.records.map((r) => ({
                ...r,
                headers: r.headers.map(([k, v]) => [k, v === "dHJpbQ==" ? "trim" : v]),
                body:
                  r.headers[0]![1] === "dHJpbQ==" ? "\u0000".repeat(Buffer.from(r.body, "base64").length + 20) : r.body,
              })),
            }),
          ),
        );
        await checkpoint();
      }),
      rp(SEED + 1),
    );
    await fc.assert(
      fc.asyncProperty(badBase64, fc.boolean(), async (b64, inHeader) => {
        const rec = inHeader ? { body: "YQ==", headers: [[b64, "YQ=="]] } : { body: b64 };
        oracle("base64", await append("victim", JSON.stringify({ records: [rec] }), { "svc-format": "base64" }));
        await checkpoint();
      }),
      rp(SEED + 2),
    );
    await fc.assert(
      fc.asyncProperty(
        fc
          .string({ minLength: 1, maxLength: 10 })
          .filter((f) => f !== "raw" && f !== "base64" && /^[\x21-\x7e]+$/.test(f)),
        async (format) => {
          oracle("svc-format", await append("victim", validBody, { "svc-format": format }));
          await checkpoint();
        },
      ),
      rp(SEED + 3),
    );
  }, 300_000);

  it("protobuf append bodies", async () => {
    await fc.assert(
      fc.asyncProperty(badProto, async (b) => {
        oracle("proto", await append("victim", b, { "content-type": "application/protobuf" }));
        await checkpoint();
      }),
      rp(SEED + 4),
    );
  }, 300_000);

  it("names and query parameters", async () => {
    await fc.assert(
      fc.asyncProperty(badBasinName, async (name) => {
        oracle("basin-name", await timed(c.call("POST", "/v1/basins", { json: { basin: name } })));
        await checkpoint();
      }),
      rp(SEED + 5),
    );
    await fc.assert(
      fc.asyncProperty(badStreamName, async (name) => {
        oracle("stream-name", await timed(c.call("POST", "/v1/streams", { basin, json: { stream: name } })));
        await checkpoint();
      }),
      { ...rp(SEED + 6), numRuns: Math.min(RUNS, 50) },
    );
    await fc.assert(
      fc.asyncProperty(badQuery, fc.boolean(), async ({ key, value }, twice) => {
        const qs = `${key}=${encodeURIComponent(value)}${twice ? `&${key}=1` : ""}`;
        const r = await timed(c.call("GET", `/v1/streams/victim/records?${qs}`, { basin }));
        oracle("query", r);
        await checkpoint();
      }),
      rp(SEED + 7),
    );
  }, 300_000);

  it("session frames: broken frames end with a 4xx terminal frame and store nothing", async () => {
    const badFrame = fc.oneof(
      fc.constant(Uint8Array.of(0, 0, 0)), // length 0: no flag byte
      fc
        .integer({ min: 2 * 1024 * 1024 + 1, max: 0xffffff })
        .map((n) => Uint8Array.of(n >> 16, (n >> 8) & 0xff, n & 0xff, 0)),
      fc.constantFrom(0x60, 0x80, 0x10 | 0x60, 0x0f).map((flag) => Uint8Array.of(0, 0, 2, flag, 0)),
      badProto.filter((p) => p.length > 0).map((p) => encodeFrame(p)),
      fc.uint8Array({ minLength: 1, maxLength: 2 }).map((b) => Uint8Array.of(0, 0, 9, 0, ...b)), // EOF mid-frame
    );
    await fc.assert(
      fc.asyncProperty(badFrame, async (frame) => {
        const t = Date.now();
        const ex = await rawExchange(lite.url, "h1", {
          method: "POST",
          path: "/v1/streams/victim/records",
          headers: { authorization: `Bearer ${lite.token}`, "svc-basin": basin, "content-type": "svc/proto" },
          duplex: true,
        });
        ex.write(frame);
        ex.end();
        const got = await ex.done;
        const p = new FrameParser();
        p.push(got);
        const last = [
          ...(function* () {
            for (let f = p.next(); f; f = p.next()) yield f;
          })(),
        ].pop();
        expect(last?.terminal, `SEED=${SEED}: a terminal frame`).toBe(true);
        const term = decodeTerminal(last!.payload);
        oracle("frame", { status: term.status, body: Buffer.from(JSON.stringify(term.body)), ms: Date.now() - t });
        await checkpoint();
      }),
      rp(SEED + 8),
    );
  }, 300_000);

  it("zip bombs and an announced 16 MiB frame are refused without large allocations", async () => {
    const hwm = (): number =>
      Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${lite.pid}/status`, "utf8"))![1]) / 1024;
    const zeros = new Uint8Array(100 * 1024 * 1024);
    const bomb = encodeAppendInput({ records: [{ headers: [], body: zeros.subarray(0, 64 * 1024 * 1024) }] });
    const bombs: [string, Uint8Array][] = [
      ["zstd", encodeFrame(await compress(bomb, "zstd"), { compression: "zstd" })],
      ["gzip", encodeFrame(gzipSync(bomb, { level: 9 }), { compression: "gzip" })],
      ["16 MiB announced", Uint8Array.of(0xff, 0xff, 0xff, 0, 1, 2, 3)],
    ];
    const start = hwm();
    for (const [what, bytes] of bombs) {
      expect(bytes.length, what).toBeLessThan(2 * 1024 * 1024);
      const ex = await rawExchange(lite.url, "h1", {
        method: "POST",
        path: "/v1/streams/victim/records",
        headers: { authorization: `Bearer ${lite.token}`, "svc-basin": basin, "content-type": "svc/proto" },
        duplex: true,
      });
      ex.write(bytes);
      ex.end();
      const p = new FrameParser();
      p.push(await ex.done);
      const f = p.next();
      expect(f?.terminal, what).toBe(true);
      const t = decodeTerminal(f!.payload);
      expect([t.status, (t.body as { code: string }).code], what).toEqual([400, "bad_frame"]);
    }
    const growth = hwm() - start;
    console.log(`bad-input: peak RSS growth under bombs and oversize frames ${growth.toFixed(1)} MiB`);
    expect(growth).toBeLessThan(10);
    expect(await digest()).toBe(before);
  }, 60_000);

  it("the stored data is unchanged at the end", async () => {
    expect(await digest()).toBe(before);
  });
});
