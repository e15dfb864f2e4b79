/**
 * `svc bench <basin>` against a real lite, as a child process (docs/design/cli.md, "Bench"):
 * results on stdout, every record verified, the temporary stream deleted; exit 8 when a foreign
 * record breaks the chain, 130 on Ctrl-C with partial results.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, liteClient } from "../helpers/lite.js";
import { type DataEnv, dataEnv } from "./cli-data-setup.js";

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

interface Result {
  stream: string;
  write: { records: number; bytes: number };
  live_read: { records: number };
  catchup: { records: number } | null;
  ack_latency: { count: number; min_ms: number; p50_ms: number; p99_ms: number; max_ms: number };
  e2e_latency: { count: number; min_ms: number; p50_ms: number; max_ms: number };
  verified: boolean;
  failure: string | null;
  interrupted: boolean;
}

async function benchStreams(): Promise<string[]> {
  const r = await d.svc(["stream", "list", `svc://${d.basin}`, "--json"]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.split("\n").filter((l) => l.includes("bench-"));
}

/** Resolves once the stream `uri` (svc://basin/stream) holds a record: a bench run has had an append acknowledged. */
async function holdsRecords(uri: string): Promise<void> {
  const [basin, stream] = uri.replace(/^svc:\/\//, "").split("/") as [string, string];
  const c = liteClient(d.lite);
  await eventually(
    async () => {
      const r = await c.call("GET", `/v1/streams/${encodeURIComponent(stream)}/records/tail`, { basin });
      return r.status === 200 && r.json().tail.seq_num > 0;
    },
    30_000,
    25,
  );
}

/** Spawns svc, resolves once stderr contains `marker`. */
function spawnUntil(args: string[], marker: string) {
  const child = d.spawnSvc(args);
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s));
  child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
  const closed = new Promise<number | null>((r) => child.on("close", (code) => r(code)));
  const started = (async () => {
    for (let i = 0; i < 600 && !stderr.includes(marker); i++) await new Promise((r) => setTimeout(r, 25));
  })();
  return { child, started, closed, out: () => stdout, err: () => stderr };
}

describe("svc bench", () => {
  it("writes, reads live and catches up, verifies every record and deletes its stream", async () => {
    const r = await d.svc([
      "bench",
      d.basin,
      "--duration",
      "2s",
      "--catchup-delay",
      "0s",
      "--target-mibps",
      "2",
      "--record-size",
      "1KiB",
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const res = JSON.parse(r.stdout) as Result;
    expect(res.verified).toBe(true);
    expect(res.failure).toBeNull();
    expect(res.write.records).toBeGreaterThan(500);
    expect(res.write.bytes).toBe(res.write.records * 1024);
    expect(res.live_read.records).toBe(res.write.records);
    expect(res.catchup?.records).toBe(res.write.records);
    expect(res.e2e_latency.count).toBe(res.write.records);
    const a = res.ack_latency;
    expect(a.count).toBeGreaterThan(0);
    expect(a.min_ms).toBeLessThanOrEqual(a.p50_ms);
    expect(a.p50_ms).toBeLessThanOrEqual(a.p99_ms);
    expect(a.p99_ms).toBeLessThanOrEqual(a.max_ms);
    expect(res.e2e_latency.min_ms).toBeGreaterThan(0);
    expect(await benchStreams()).toEqual([]);
  }, 60_000);

  it("--max with several writers and --keep-stream: the stream holds exactly what was acked", async () => {
    const r = await d.svc([
      "bench",
      d.basin,
      "--max",
      "--writers",
      "3",
      "--duration",
      "1s",
      "--no-catchup",
      "--record-size",
      "256",
      "--keep-stream",
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const res = JSON.parse(r.stdout) as Result;
    expect(res.verified).toBe(true);
    expect(res.catchup).toBeNull();
    expect(res.live_read.records).toBe(res.write.records);
    const tail = await d.svc(["check-tail", res.stream, "--seq-only"]);
    expect(tail.code, tail.stderr).toBe(0);
    expect(Number(tail.stdout.trim())).toBe(res.write.records);
    expect(await benchStreams()).toHaveLength(1);
    expect((await d.svc(["stream", "delete", res.stream, "--yes"])).code).toBe(0);
  }, 60_000);

  it("a foreign record in the stream fails verification with exit 8; --stream is kept", async () => {
    const uri = await d.newStream("foreign");
    const run = spawnUntil(
      [
        "bench",
        d.basin,
        "--stream",
        uri,
        "--duration",
        "4s",
        "--catchup-delay",
        "0s",
        "--record-size",
        "512",
        "--target-mibps",
        "1",
      ],
      "bench svc://",
    );
    await run.started;
    await holdsRecords(uri); // the run is writing: the foreign record comes among its records
    const a = await d.svc(["append", uri], { stdin: "not a bench record\n" });
    expect(a.code, a.stderr).toBe(0);
    expect(await run.closed).toBe(8);
    expect(run.err()).toMatch(/verification failed: record \d+ is not from this run/);
    expect(run.out()).toMatch(/verification FAILED/);
    const tail = await d.svc(["check-tail", uri, "--seq-only"]);
    expect(Number(tail.stdout.trim())).toBeGreaterThan(0);
  }, 60_000);

  it("Ctrl-C prints partial results, deletes the stream and exits 130", async () => {
    const run = spawnUntil(
      ["bench", d.basin, "--duration", "60s", "--record-size", "1KiB", "--target-mibps", "1", "--json"],
      "bench svc://",
    );
    await run.started;
    const uri = /^bench (svc:\/\/\S+):/m.exec(run.err())?.[1];
    expect(uri, run.err()).toBeDefined();
    await holdsRecords(uri as string); // records written: partial results to show
    run.child.kill("SIGINT");
    expect(await run.closed).toBe(130);
    const res = JSON.parse(run.out()) as Result;
    expect(res.interrupted).toBe(true);
    expect(res.write.records).toBeGreaterThan(0);
    expect(res.catchup).toBeNull();
    expect(await benchStreams()).toEqual([]);
  }, 60_000);

  it("refuses conflicting or impossible flags with exit 2 and creates nothing", async () => {
    const both = await d.svc(["bench", d.basin, "--max", "--target-mibps", "5"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/either --max or --target-mibps/);
    const small = await d.svc(["bench", d.basin, "--record-size", "10"]);
    expect(small.code).toBe(2);
    expect(small.stderr).toMatch(/--record-size must be at least 60/);
    expect(await benchStreams()).toEqual([]);
  }, 60_000);
});
