/**
 * Several endpoints with failover, against two svc lite nodes on one PostgreSQL:
 * `SVC_ACCOUNT_ENDPOINT=http://a,http://b` (as kcat's `-b a,b`). Commands work while one node
 * is down (`-v` says which node failed and which answered); a `read -f` through a node that is
 * killed (-9) goes on through the other, with no gap and no duplicate; the in-doubt rules stay
 * (an append is moved to another node only when it provably did nothing).
 */
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Failover } from "../../src/client/failover.js";
import { runSvc, SVC_BIN, tempHome } from "../helpers/cli.js";
import { eventually } from "../helpers/lite.js";
import { PgCluster, type PgNode } from "../helpers/pg-cluster.js";

let cluster: PgCluster;
let a: PgNode;
let b: PgNode;
const BASIN = `failover-${process.pid}`;

beforeAll(async () => {
  cluster = await PgCluster.create();
  a = await cluster.node();
  b = await cluster.node();
}, 120_000);
afterAll(async () => {
  await cluster?.close();
});

const envFor = (urls: string[]) => ({
  SVC_ACCOUNT_ENDPOINT: urls.join(","),
  SVC_BASIN_ENDPOINT: urls.join(","),
  SVC_ACCESS_TOKEN: a.lite.token,
});

describe("Failover (unit)", () => {
  it("starts at a random node, keeps the one that answers, moves on from one that fails", () => {
    const f = new Failover([["http://a/v1", "http://b/v1", "http://c/v1"]], () => 0.5);
    expect(f.candidates("http://a/v1/basins?x=1")).toEqual([
      "http://b/v1/basins?x=1",
      "http://c/v1/basins?x=1",
      "http://a/v1/basins?x=1",
    ]);
    f.failed("http://b/v1/basins");
    expect(f.candidates("http://a/v1/streams")[0]).toBe("http://c/v1/streams");
    f.answered("http://a/v1/streams");
    expect(f.candidates("http://a/v1/streams")[0]).toBe("http://a/v1/streams");
    expect(f.candidates("http://elsewhere/v1/x")).toEqual(["http://elsewhere/v1/x"]);
    expect(f.node("http://c/v1/streams")).toBe("http://c");
  });
});

describe("svc with two endpoints", () => {
  it("accepts a list, and works through nodes that are down", async () => {
    // Three nodes down, one up: a process starts at a random node, so most runs meet a dead one.
    const dead = ["http://127.0.0.1:9", "http://127.0.0.1:7", "http://127.0.0.1:1"];
    const env = envFor([...dead, a.lite.url]);
    const create = await runSvc(["basin", "create", BASIN, "--create-stream-on-append"], { env });
    expect(create.code, create.stderr).toBe(0);
    let moved = 0;
    for (let i = 0; i < 6; i++) {
      const r = await runSvc(["append", `svc://${BASIN}/s0`, `r${i}`, "-v"], { env });
      expect(r.code, r.stderr).toBe(0);
      if (/node http:\/\/127\.0\.0\.1:\d+ failed \(connect_failed\); trying /.test(r.stderr)) moved++;
      expect(r.stderr).toContain(`POST ${a.lite.url}/v1/streams/s0/records → 200`);
    }
    expect(moved).toBeGreaterThan(0);
    const back = await runSvc(["read", `svc://${BASIN}/s0`, "-s", "0", "-e"], { env });
    expect(back.stdout).toBe("r0\nr1\nr2\nr3\nr4\nr5\n");
  }, 60_000);

  it("svc ping says which nodes answer", async () => {
    const dead = "http://127.0.0.1:9";
    const r = await runSvc(["ping", "-n", "1"], { env: envFor([dead, a.lite.url]) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^nodes +${dead} does not answer \\(connect_failed\\)$`, "m"));
    expect(r.stdout).toMatch(new RegExp(`^ +${a.lite.url} answers \\(GET /ping [\\d.]+ ms\\)$`, "m"));
    const json = await runSvc(["ping", "-n", "1", "--json"], { env: envFor([dead, a.lite.url]) });
    expect(JSON.parse(json.stdout).nodes).toEqual([
      { node: dead, error: "connect_failed" },
      { node: a.lite.url, ms: expect.any(Number) },
    ]);
  }, 60_000);

  it("a read -f through a node that is killed goes on through the other: no gap, no duplicate", async () => {
    const uri = `svc://${BASIN}/follow`;
    const mk = await runSvc(["stream", "create", uri], { env: envFor([a.lite.url]) });
    expect(mk.code, mk.stderr).toBe(0);
    const home = tempHome();
    const reader = spawn(process.execPath, [SVC_BIN, "read", uri, "-s", "0", "-f", "--format", "json", "-v"], {
      env: { PATH: process.env.PATH ?? "", HOME: home, FORCE_COLOR: "0", ...envFor([a.lite.url, b.lite.url]) },
    });
    let out = "";
    let err = "";
    reader.stdout.setEncoding("utf8").on("data", (s: string) => (out += s));
    reader.stderr.setEncoding("utf8").on("data", (s: string) => (err += s));
    const exited = new Promise<number | null>((r) => reader.on("close", (code) => r(code)));
    const seqs = (): number[] =>
      out
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => (JSON.parse(l) as { seq_num: number }).seq_num);
    // Writes go through both nodes, one record at a time, each acked before the next.
    let n = 0;
    const write = async (via: PgNode, count: number): Promise<void> => {
      for (let i = 0; i < count; i++) {
        const r = await runSvc(["append", uri, `w${n}`], { env: envFor([via.lite.url]) });
        expect(r.code, r.stderr).toBe(0);
        n++;
      }
    };
    await write(a, 5);
    await eventually(async () => seqs().length >= 5, 20_000);
    // The node the read session is on, from -v: "GET http://127.0.0.1:PORT/v1/streams/…/records … (session)".
    const m = /(?:GET|POST) (http:\/\/127\.0\.0\.1:\d+)\/v1\/streams\/[^ ]*records[^\n]*\(session\)/.exec(err);
    expect(m, err).not.toBeNull();
    const on = m![1] === a.lite.url ? a : b;
    const other = on === a ? b : a;
    await on.lite.kill9();
    await write(other, 10);
    await eventually(async () => seqs().length >= 15, 30_000);
    await write(other, 3);
    await eventually(async () => seqs().length >= 18, 30_000);
    reader.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(seqs()).toEqual(Array.from({ length: 18 }, (_, i) => i));
    expect(
      out
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => (JSON.parse(l) as { body: string }).body),
    ).toEqual(Array.from({ length: 18 }, (_, i) => `w${i}`));
    if (on === a) await on.lite.restart();
  }, 120_000);
});
