/**
 * Found by a security review: on a basin with a `stream_cipher` and auto-creation on, an
 * append or read without the encryption key was refused (400 bad_header) but created the
 * stream first, which §10.3 forbids (a rejected request never creates a stream): the stream
 * was looked up, and so created, before its key was checked. Now a stream about to be
 * auto-created is checked for the key its cipher needs first, on unary requests, sessions
 * and SSE alike.
 */
import { connect } from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lite, liteClient, startLite } from "../helpers/lite.js";

let lite: Lite;
const basin = `enc-auto-${process.pid}`;
const key = Buffer.alloc(32, 7).toString("base64");

beforeAll(async () => {
  lite = await startLite();
  const r = await liteClient(lite).call("POST", "/v1/basins", {
    json: {
      basin,
      config: { stream_cipher: "aes-256-gcm", create_stream_on_append: true, create_stream_on_read: true },
    },
  });
  expect(r.status).toBe(201);
});

afterAll(async () => {
  await lite?.stop();
});

const streams = async (): Promise<string[]> =>
  (await liteClient(lite).call("GET", "/v1/streams", { basin })).json().streams.map((s: { name: string }) => s.name);

/** Opens a session over h2c (svc/proto append or read, or SSE) and returns the response status. */
function sessionStatus(path: string, headers: Record<string, string>, method = "GET"): Promise<number> {
  return new Promise((resolve, reject) => {
    const conn = connect(lite.url);
    conn.on("error", reject);
    const req = conn.request({
      ":method": method,
      ":path": path,
      authorization: `Bearer ${lite.token}`,
      "svc-basin": basin,
      ...headers,
    });
    req.on("response", (h) => {
      resolve(Number(h[":status"]));
      req.close();
      conn.close();
    });
    req.on("error", reject);
    if (method === "GET") req.end();
  });
}

describe("auto-creating an encrypted stream", () => {
  it("does not happen for a request refused for its missing or malformed key", async () => {
    const root = liteClient(lite);
    const cases: [string, () => Promise<number>][] = [
      [
        "unary append",
        async () =>
          (await root.call("POST", "/v1/streams/a1/records", { basin, json: { records: [{ body: "x" }] } })).status,
      ],
      [
        "unary append, bad key",
        async () =>
          (
            await root.call("POST", "/v1/streams/a2/records", {
              basin,
              json: { records: [{ body: "x" }] },
              headers: { "svc-encryption-key": "c2hvcnQ=" },
            })
          ).status,
      ],
      [
        "unary read",
        async () => (await root.call("GET", "/v1/streams/r1/records", { basin, query: { seq_num: 0 } })).status,
      ],
      ["append session", () => sessionStatus("/v1/streams/s1/records", { "content-type": "svc/proto" }, "POST")],
      ["read session", () => sessionStatus("/v1/streams/s2/records?seq_num=0", { "content-type": "svc/proto" })],
      ["SSE read", () => sessionStatus("/v1/streams/s3/records?seq_num=0", { accept: "text/event-stream" })],
    ];
    for (const [what, run] of cases) expect([what, await run()]).toEqual([what, 400]);
    expect(await streams()).toEqual([]);
  });

  it("happens for the same requests with a key, and the stream is encrypted with the basin's cipher", async () => {
    const root = liteClient(lite);
    const ok = await root.call("POST", "/v1/streams/a1/records", {
      basin,
      json: { records: [{ body: "x" }] },
      headers: { "svc-encryption-key": key },
    });
    expect(ok.status).toBe(200);
    expect((await root.call("GET", "/v1/streams/r1/records/tail", { basin })).status).toBe(200); // check-tail needs no key
    expect(await streams()).toEqual(["a1", "r1"]);
    expect((await root.call("GET", "/v1/streams/a1/records", { basin, query: { seq_num: 0 } })).status).toBe(400); // encrypted: no key, no records
    const back = await root.call("GET", "/v1/streams/a1/records", {
      basin,
      query: { seq_num: 0 },
      headers: { "svc-encryption-key": key },
    });
    expect(back.json().records.map((r: { body: string }) => r.body)).toEqual(["x"]);
  });
});
