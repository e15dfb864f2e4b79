/**
 * Found by a security review: with `--no-auth`, a cross-site GET could create streams. A
 * no-cors `<img src="http://127.0.0.1:4243/v1/streams/x/records?seq_num=0">` carries no
 * `Origin`, so the origin check did not apply, and a read of a missing stream in a basin with
 * `create_stream_on_read` created it. Browsers say where such a request came from in
 * `Sec-Fetch-Site`: `cross-site` (and `same-site` from another origin, such as another port
 * of localhost) is now refused with 403 when that origin is not allowed, for every method.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lite, liteClient, startLite } from "../helpers/lite.js";

let open: Lite;
let allowed: Lite;
const basin = `pixel-img-${process.pid}`;

beforeAll(async () => {
  open = await startLite({ args: ["--no-auth"] });
  allowed = await startLite({ args: ["--no-auth", "--cors-origin", "http://app.localhost:3000"] });
  for (const l of [open, allowed]) {
    const r = await liteClient(l).call("POST", "/v1/basins", {
      json: { basin, config: { create_stream_on_read: true } },
    });
    expect(r.status).toBe(201);
  }
});

afterAll(async () => {
  await open?.stop();
  await allowed?.stop();
});

const streams = async (l: Lite): Promise<string[]> =>
  (await liteClient(l).call("GET", "/v1/streams", { basin })).json().streams.map((s: { name: string }) => s.name);

describe("--no-auth and Sec-Fetch-Site", () => {
  it("refuses a cross-site or same-site no-cors GET without creating anything", async () => {
    for (const site of ["cross-site", "same-site"]) {
      const r = await liteClient(open).call("GET", `/v1/streams/pixel-${site}/records`, {
        basin,
        query: { seq_num: 0 },
        headers: { "sec-fetch-site": site, "sec-fetch-mode": "no-cors" },
      });
      expect(r.status).toBe(403);
      expect(r.json().code).toBe("permission_denied");
    }
    const del = await liteClient(open).call("DELETE", `/v1/basins/${basin}`, {
      headers: { "sec-fetch-site": "cross-site" },
    });
    expect(del.status).toBe(403);
    expect(await streams(open)).toEqual([]);
  });

  it("answers same-origin and user-initiated requests, and allowed origins", async () => {
    for (const site of ["same-origin", "none"]) {
      const r = await liteClient(open).call("GET", "/v1/basins", { headers: { "sec-fetch-site": site } });
      expect(r.status).toBe(200);
    }
    // the read runs (an empty stream: 416) and auto-creates the stream, as a same-origin read would
    const r = await liteClient(allowed).call("GET", "/v1/streams/ok/records", {
      basin,
      query: { seq_num: 0 },
      headers: { "sec-fetch-site": "same-site", origin: "http://app.localhost:3000" },
    });
    expect(r.status).toBe(416);
    expect(await streams(allowed)).toEqual(["ok"]);
    const no = await liteClient(allowed).call("GET", "/v1/streams/no/records", {
      basin,
      query: { seq_num: 0 },
      headers: { "sec-fetch-site": "cross-site" },
    });
    expect(no.status).toBe(403);
  });
});
