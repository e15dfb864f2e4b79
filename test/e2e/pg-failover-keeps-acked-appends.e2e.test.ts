/**
 * A failover (scripts/lib/pg-pair.mjs, as `npm run cluster -- --standby`): a lite node appends
 * from several writers; the primary's WAL sender is frozen (SIGSTOP: the standby receives
 * nothing more), then the primary is killed with SIGKILL and the standby promoted; a node started on it serves what
 * the first node acknowledged. With a synchronous standby every acknowledged append is there, at
 * the seq num it was acknowledged with (docs/postgres.md: a commit is on the standby before
 * anyone is told): the primary stops acknowledging while the standby cannot confirm. With an
 * asynchronous one the primary goes on acknowledging, and the appends the standby never
 * received are lost: what the check sees when it can.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startPgPair } from "../../scripts/lib/pg-pair.mjs";
import { eventually, type Lite, liteClient, startLite } from "../helpers/lite.js";

const BASIN = "failover-basin-01";
let pair: Awaited<ReturnType<typeof startPgPair>> | undefined;
const nodes: Lite[] = [];
let frozen = 0;

afterEach(async () => {
  if (frozen) process.kill(frozen, "SIGCONT");
  frozen = 0;
  for (const n of nodes.splice(0)) await n.kill9();
  await pair?.stop();
  pair = undefined;
});

/** Appends, fails over, and returns the acknowledged appends a node on the promoted standby does not serve. */
async function failover(mode: "sync" | "async"): Promise<{ acked: number; lost: [number, string][] }> {
  pair = await startPgPair({ standby: mode });
  const tokenFile = join(pair.dir, "root-token");
  writeFileSync(tokenFile, "failover-test-root-token-0123456789abcdef\n", { mode: 0o600 });
  const args = [
    "--storage-password-file",
    pair.passwordFile,
    "--root-token-file",
    tokenFile,
    "--storage-timeout",
    "2s",
  ];
  const a = await startLite({ postgres: pair.url, args });
  nodes.push(a);
  const c = liteClient(a);
  expect((await c.call("POST", "/v1/basins", { json: { basin: BASIN } })).status).toBe(201);
  expect((await c.call("POST", "/v1/streams", { basin: BASIN, json: { stream: "s" } })).status).toBe(201);

  const acked = new Map<number, string>();
  let failed = 0;
  let stop = false;
  const writer = async (w: number): Promise<void> => {
    for (let i = 0; !stop; i++) {
      const body = `w${w}-${i}`;
      const r = await c.call("POST", "/v1/streams/s/records", { basin: BASIN, json: { records: [{ body }] } });
      if (r.status === 200) acked.set(r.json().start.seq_num as number, body);
      else failed++;
    }
  };
  const writers = [0, 1, 2, 3].map(writer);
  await eventually(async () => acked.size >= 50, 30_000, 10);
  const sender = spawnSync("pgrep", ["-P", String(pair.servers.primary.pid), "-f", "walsender"], {
    encoding: "utf8",
  }).stdout.trim();
  expect(sender).toMatch(/^\d+$/);
  frozen = Number(sender);
  process.kill(frozen, "SIGSTOP");
  const before = acked.size;
  // An asynchronous primary goes on acknowledging; a synchronous one waits, and appends fail at their deadline (2 s).
  await eventually(async () => acked.size >= before + 100 || failed >= 4, 30_000, 10);
  await pair.killPrimary(); // the frozen sender with it
  frozen = 0;
  stop = true;
  await Promise.all(writers);
  await pair.promote();

  const b = await startLite({ postgres: pair.standbyUrl!, args });
  nodes.push(b);
  const read = await liteClient(b).call("GET", "/v1/streams/s/records", {
    basin: BASIN,
    query: { seq_num: 0, count: 1000 },
  });
  expect(read.status).toBe(200);
  const stored = read.json().records as { seq_num: number; body: string }[];
  const lost = [...acked].filter(([seq, body]) => stored[seq]?.body !== body || stored[seq]?.seq_num !== seq);
  return { acked: acked.size, lost };
}

describe("a failover", () => {
  it("to a synchronous standby keeps every append a node acknowledged", async () => {
    const { acked, lost } = await failover("sync");
    expect(acked).toBeGreaterThanOrEqual(50);
    expect(lost).toEqual([]);
  }, 120_000);

  it("to an asynchronous standby loses what it never received", async () => {
    const { acked, lost } = await failover("async");
    expect(acked).toBeGreaterThanOrEqual(150);
    expect(lost.length).toBeGreaterThan(0);
  }, 120_000);
});
