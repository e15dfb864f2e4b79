/**
 * Bug: svc lite on PostgreSQL kept no metrics and answered every `GET /v1/metrics…` with 501
 * "metrics are off on this server (svc lite --no-metrics)", so `svc metrics` told the user
 * about a flag nobody gave. Now metrics are kept on PostgreSQL too (every node counts, the
 * database sums): `svc metrics` against such a server answers with the traffic. Where metrics
 * really are off (a node started with --no-metrics) the server's message says so, and the CLI
 * prints that message as it came, adding no cause of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { type Lite, startLite, uniqueBasin } from "../helpers/lite.js";
import { freshDatabase } from "../helpers/postgres.js";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let on: Lite;
let off: Lite;
const basin = uniqueBasin("nm");

const svc = (node: Lite, args: string[], stdin?: string) =>
  runSvc(args, {
    stdin,
    env: { SVC_ACCOUNT_ENDPOINT: node.url, SVC_BASIN_ENDPOINT: node.url, SVC_ACCESS_TOKEN: node.token },
  });

beforeAll(async () => {
  db = await freshDatabase();
  [on, off] = await Promise.all([
    startLite({ postgres: db.url }),
    startLite({ postgres: db.url, args: ["--no-metrics"] }),
  ]);
  expect((await svc(on, ["basin", "create", basin])).code).toBe(0);
  expect((await svc(on, ["stream", "create", `svc://${basin}/s`])).code).toBe(0);
  expect((await svc(on, ["append", `svc://${basin}/s`], "one\ntwo\n")).code).toBe(0);
}, 60_000);

afterAll(async () => {
  await Promise.all([on?.stop(), off?.stop()]);
  await db?.drop();
});

describe("svc metrics against svc lite on PostgreSQL", () => {
  it("answers with the traffic, and says nothing of --no-metrics", async () => {
    const r = await svc(on, ["metrics", "basin", basin, "--metric", "append-ops", "--json"]);
    expect(r.stderr).not.toContain("--no-metrics");
    expect(r.code, r.stderr).toBe(0);
    const points = JSON.parse(r.stdout).values[0].accumulation.values as [number, number][];
    expect(points.reduce((n, [, v]) => n + v, 0)).toBe(1);
    expect(on.stderr()).not.toMatch(/metrics are off/);
  });

  it("on a node started with --no-metrics, prints the server's own reason, once", async () => {
    const r = await svc(off, ["metrics", "basin", basin, "--metric", "append-ops"]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe("");
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines[0]).toBe(
      `error: Failed to get basin metrics svc://${basin}: metrics are off on this server: it was started with --no-metrics (501 not_implemented)`,
    );
    expect(r.stderr.split("--no-metrics")).toHaveLength(2);
  });
});
