/**
 * Found by a CLI probe (wrong output): `svc stream list --limit N` and `svc basin list --limit
 * N` printed fewer than N items when some were being deleted: the limit was spent on them
 * while paging, and they were then hidden. Now hidden items are skipped before counting
 * (`--include-deleted` counts them, as it shows them).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { type Lite, liteClient, startLite } from "../helpers/lite.js";

let lite: Lite;
let env: Record<string, string>;
const tag = `${process.pid}`.slice(-5);
const basin = `list-limit-${tag}`;

beforeAll(async () => {
  lite = await startLite({ env: { SVC_LITE_DELETE_GRACE_MS: "600000" } }); // deletions stay pending
  env = { SVC_ACCOUNT_ENDPOINT: lite.url, SVC_BASIN_ENDPOINT: lite.url, SVC_ACCESS_TOKEN: lite.token };
  const c = liteClient(lite);
  for (const b of [`a-${basin}`, `b-${basin}`, `c-${basin}`])
    expect((await c.call("POST", "/v1/basins", { json: { basin: b } })).status).toBe(201);
  for (const s of ["aaa", "bbb", "ccc"])
    expect((await c.call("POST", "/v1/streams", { basin: `b-${basin}`, json: { stream: s } })).status).toBe(201);
  expect((await c.call("DELETE", "/v1/streams/aaa", { basin: `b-${basin}` })).status).toBe(202);
  expect((await c.call("DELETE", `/v1/basins/a-${basin}`)).status).toBe(202);
});

afterAll(async () => {
  await lite?.stop();
});

const lines = (s: string) => s.split("\n").filter(Boolean);

describe("--limit with items being deleted", () => {
  it("svc stream list --limit 2 prints two live streams", async () => {
    const r = await runSvc(["stream", "list", `b-${basin}`, "--limit", "2"], { env });
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual([`svc://b-${basin}/bbb`, `svc://b-${basin}/ccc`]);
    const all = await runSvc(["stream", "list", `b-${basin}`, "--limit", "2", "--include-deleted"], { env });
    expect(lines(all.stdout).map((l) => l.split(" ")[0])).toEqual([`svc://b-${basin}/aaa`, `svc://b-${basin}/bbb`]);
  });

  it("svc basin list --limit 2 prints two live basins", async () => {
    const r = await runSvc(["basin", "list", "--prefix", "", "--limit", "2"], { env });
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual([`b-${basin}`, `c-${basin}`]);
  });
});
