/**
 * Stream encryption with client-supplied keys (protocol.md §8.8) in svc lite:
 * round trips under both ciphers, every error case of the §8.8 table, command records left
 * plaintext, and a marker appended to an encrypted stream found in no file of the data dir
 * (while the same marker in a plaintext stream is found: the search can fail).
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lite, type LiteClient, liteClient, startLite, uniqueBasin } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";

let lite: Lite;
let c: LiteClient;
const key = randomBytes(32).toString("base64");
const wrongKey = randomBytes(32).toString("base64");
const b64 = (s: string): string => Buffer.from(s).toString("base64");

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    const st = statSync(p);
    return st.isDirectory() ? filesUnder(p) : st.isFile() ? [p] : []; // not the lock's sockets
  });
}

function foundInDataDir(marker: string): boolean {
  return filesUnder(lite.dataDir!).some((f) => readFileSync(f).includes(Buffer.from(marker)));
}

async function encryptedBasin(cipher: string): Promise<string> {
  const basin = uniqueBasin("e");
  const r = await c.call("POST", "/v1/basins", { json: { basin, config: { stream_cipher: cipher } } });
  expect(r.status).toBe(201);
  expect((await c.call("GET", `/v1/basins/${basin}`)).json().stream_cipher).toBe(cipher);
  const s = await c.call("POST", "/v1/streams", { basin, json: { stream: "s" } });
  expect(s.json().cipher).toBe(cipher);
  return basin;
}

const append = (basin: string, records: unknown[], headers: Record<string, string> = {}) =>
  c.call("POST", "/v1/streams/s/records", {
    basin,
    headers: { "svc-format": "base64", ...headers },
    json: { records },
  });
const read = (basin: string, headers: Record<string, string> = {}) =>
  c.call("GET", "/v1/streams/s/records", {
    basin,
    headers: { "svc-format": "base64", ...headers },
    query: { seq_num: 0 },
  });

beforeAll(async () => {
  lite = await startLite({ dataDir: scratchDir("svc-enc-") });
  c = liteClient(lite);
});
afterAll(async () => {
  await c.close();
  expect(await lite.stop()).toBe(0);
});

describe.each(["aes-256-gcm", "aegis-256"])("%s", (cipher) => {
  it("round-trips bodies and headers with the right key; the marker is in no file", async () => {
    const basin = await encryptedBasin(cipher);
    const marker = `MARKER-${cipher}-${randomBytes(8).toString("hex")}`;
    const records = [
      { headers: [[b64("h-name"), b64(`${marker}-header`)]], body: b64(marker) },
      { headers: [], body: "" },
    ];
    const ack = await append(basin, records, { "svc-encryption-key": key });
    expect(ack.status, ack.text()).toBe(200);
    const got = await read(basin, { "svc-encryption-key": key });
    expect(got.status).toBe(200);
    expect(
      got.json().records.map((r: { headers?: unknown; body?: unknown }) => [r.headers ?? [], r.body ?? ""]),
    ).toEqual(records.map((r) => [r.headers, r.body]));
    expect(foundInDataDir(marker)).toBe(false);
    const wrong = await read(basin, { "svc-encryption-key": wrongKey });
    expect([wrong.status, wrong.json().code]).toEqual([400, "decryption_failed"]);
    expect(wrong.text()).not.toContain(wrongKey);
  });
});

describe("§8.8 error cases", () => {
  let basin: string;
  beforeAll(async () => {
    basin = await encryptedBasin("aes-256-gcm");
  });

  it.each([
    ["missing", {}],
    ["empty", { "svc-encryption-key": "" }],
    ["not base64", { "svc-encryption-key": "!!!!" }],
    ["16 bytes", { "svc-encryption-key": randomBytes(16).toString("base64") }],
    ["longer than 44 characters", { "svc-encryption-key": `${key}AAAA` }],
  ])(
    "a %s key is 400 bad_header on append and read, and nothing is stored",
    async (_, headers: Record<string, string>) => {
      const a = await append(basin, [{ body: b64("x") }], headers);
      expect([a.status, a.json().code]).toEqual([400, "bad_header"]);
      const r = await read(basin, headers);
      expect([r.status, r.json().code]).toEqual([400, "bad_header"]);
      const tail = await c.call("GET", "/v1/streams/s/records/tail", { basin });
      expect(tail.json().tail.seq_num).toBe(0);
    },
  );

  it("a key sent for a plaintext stream is ignored; the marker there IS found (the search works)", async () => {
    const plain = uniqueBasin("p");
    await c.call("POST", "/v1/basins", { json: { basin: plain } });
    await c.call("POST", "/v1/streams", { basin: plain, json: { stream: "s" } });
    const marker = `PLAIN-${randomBytes(8).toString("hex")}`;
    expect((await append(plain, [{ body: b64(marker) }], { "svc-encryption-key": "not even base64" })).status).toBe(
      200,
    );
    expect((await read(plain)).json().records[0].body).toBe(b64(marker));
    expect(foundInDataDir(marker)).toBe(true);
  });

  it("command records stay plaintext and readable", async () => {
    const fence = await append(basin, [{ headers: [["", b64("fence")]], body: b64("tok-1") }], {
      "svc-encryption-key": key,
    });
    expect(fence.status).toBe(200);
    const got = await read(basin, { "svc-encryption-key": key });
    expect(got.json().records.at(-1)).toMatchObject({ headers: [["", b64("fence")]], body: b64("tok-1") });
    expect(foundInDataDir("tok-1")).toBe(true);
  });

  it("an unknown cipher is bad_json; a cipher applies only to streams created afterwards", async () => {
    const bad = await c.call("POST", "/v1/basins", {
      json: { basin: uniqueBasin(), config: { stream_cipher: "rot13" } },
    });
    expect([bad.status, bad.json().code]).toEqual([400, "bad_json"]);
    const b = uniqueBasin("l");
    await c.call("POST", "/v1/basins", { json: { basin: b } });
    await c.call("POST", "/v1/streams", { basin: b, json: { stream: "before" } });
    const patched = await c.call("PATCH", `/v1/basins/${b}`, { json: { stream_cipher: "aegis-256" } });
    expect(patched.json().stream_cipher).toBe("aegis-256");
    await c.call("POST", "/v1/streams", { basin: b, json: { stream: "after" } });
    const list = (await c.call("GET", "/v1/streams", { basin: b })).json().streams;
    expect(list.map((s: { name: string; cipher: string | null }) => [s.name, s.cipher])).toEqual([
      ["after", "aegis-256"],
      ["before", null],
    ]);
  });
});
