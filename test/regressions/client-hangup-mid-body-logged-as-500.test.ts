/**
 * Found by a bad-input probe: a client that closed its connection while sending a unary
 * request body (h2: part of a JSON append, then the connection destroyed) made lite log an
 * internal error (`Error [ERR_STREAM_PREMATURE_CLOSE]`, then `→ 500 other`) and count a 500
 * in `svc_lite_requests_total`, every time. A client going away is its own doing, not a
 * server error: it is now counted as 499 (client_hangup), nothing is logged, and nothing is
 * appended.
 */
import { connect } from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStreams, type Lite, liteClient, startLite } from "../helpers/lite.js";

let lite: Lite;
const basin = `hangup-${process.pid}`;

beforeAll(async () => {
  lite = await startLite();
  await createStreams(lite, basin, ["s"]);
});

afterAll(async () => {
  await lite?.stop();
});

async function halfBodyThenGone(): Promise<void> {
  const conn = connect(lite.url);
  conn.on("error", () => undefined);
  const req = conn.request({
    ":method": "POST",
    ":path": "/v1/streams/s/records",
    authorization: `Bearer ${lite.token}`,
    "svc-basin": basin,
    "content-type": "application/json",
  });
  req.on("error", () => undefined);
  req.write('{"records":[{"body":"half');
  await new Promise((r) => setTimeout(r, 100));
  conn.destroy();
  await new Promise((r) => setTimeout(r, 100));
}

describe("a client that goes away mid-body", () => {
  it("is counted as 499, not logged as a server error, and appends nothing", async () => {
    for (let i = 0; i < 3; i++) await halfBodyThenGone();
    const prom = (await liteClient(lite).call("GET", "/metrics")).text();
    expect(prom).not.toContain('operation="append",status="500"');
    expect(prom).toContain('svc_lite_requests_total{operation="append",status="499"} 3\n');
    expect(lite.stderr()).not.toMatch(/internal error|PREMATURE_CLOSE|→ 500/);
    expect((await liteClient(lite).call("GET", "/v1/streams/s/records/tail", { basin })).json().tail.seq_num).toBe(0);
  });
});
