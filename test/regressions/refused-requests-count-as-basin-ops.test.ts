/**
 * Found by a security review: requests lite refused with 401 or 403 were counted as
 * operations of the basin named in their `svc-basin` header. Anyone who could reach the port,
 * with no token at all, could raise another tenant's `basin-ops` and make an idle basin show
 * in `active-basins`. Refused requests are now counted only in the server's own request
 * statistics (Prometheus, by status), not as the account's or a basin's operations.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lite, liteClient, startLite } from "../helpers/lite.js";

let lite: Lite;
const quiet = `quiet-basin-${process.pid}`;

beforeAll(async () => {
  lite = await startLite();
  expect((await liteClient(lite).call("POST", "/v1/basins", { json: { basin: quiet } })).status).toBe(201);
});

afterAll(async () => {
  await lite?.stop();
});

const root = () => liteClient(lite);
const lastHour = (): { start: number; end: number } => ({
  start: Math.floor(Date.now() / 1000) - 3600,
  end: Math.floor(Date.now() / 1000),
});
const readOps = async (): Promise<number> => {
  const r = await root().call("GET", `/v1/metrics/${quiet}`, { query: { set: "basin-ops", ...lastHour() } });
  expect(r.status).toBe(200);
  const read = (r.json().values as { accumulation: { name: string; values: [number, number][] } }[]).find(
    (v) => v.accumulation.name === "read",
  );
  return (read?.accumulation.values ?? []).reduce((n, [, v]) => n + v, 0);
};
const active = async (): Promise<string[]> =>
  (await root().call("GET", "/v1/metrics", { query: { set: "active-basins", ...lastHour() } })).json().values[0].label
    .values;

describe("requests refused by authentication or authorization", () => {
  it("do not count as the named basin's operations", async () => {
    expect(await active()).not.toContain(quiet);
    const nobody = liteClient({ url: lite.url, token: "not-a-token" });
    for (let i = 0; i < 3; i++)
      expect((await nobody.call("GET", "/v1/streams/nope/records", { basin: quiet })).status).toBe(401);
    const other = await root().call("POST", "/v1/access-tokens", {
      json: {
        id: `other-${process.pid}`,
        scope: { basins: { exact: "someone-else" }, op_groups: { stream: { read: true } } },
      },
    });
    const outsider = liteClient({ url: lite.url, token: other.json().access_token });
    for (let i = 0; i < 3; i++)
      expect((await outsider.call("GET", "/v1/streams/nope/records", { basin: quiet })).status).toBe(403);
    expect(await readOps()).toBe(0);
    expect(await active()).not.toContain(quiet);

    // An admitted request is counted (404: the stream does not exist, but the call was made).
    expect((await root().call("GET", "/v1/streams/nope/records", { basin: quiet })).status).toBe(404);
    expect(await readOps()).toBe(1);
    expect(await active()).toContain(quiet);

    // The server's own statistics still show the refused ones, by status.
    const prom = (await root().call("GET", "/metrics")).text();
    expect(prom).toContain('svc_lite_requests_total{operation="read",status="401"} 3\n');
    expect(prom).toContain('svc_lite_requests_total{operation="read",status="403"} 3\n');
  });
});
