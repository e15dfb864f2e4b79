/**
 * Bug (found by the database outage work): when PostgreSQL stopped answering without
 * closing its connections (a frozen host, a network partition that drops packets), a lite
 * node froze with it. The Storage read methods are synchronous (SyncQuery blocks the event
 * loop on a worker's answer, 15 s at most), and every request revalidates its stream with
 * such reads, so every request held the whole node, every other request, session and
 * heartbeat included, for 15 s, one after another, for as long as the database was frozen.
 *
 * Now a read that times out opens a circuit: until the database answers a probe again, reads
 * fail at once with 503 `unavailable` (retryable) and the node keeps serving what it can;
 * the first blocked read waits 5 s, not 15. Here PostgreSQL is frozen with SIGSTOP: requests
 * must get their 503 quickly (after the first), and after SIGCONT the node serves again.
 */
import { readdirSync, readFileSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SvcClient } from "../../src/client/client.js";
import { type Lite, liteClient, startLite } from "../helpers/lite.js";
import { startPostgres } from "../helpers/postgres.js";

const BASIN = `hung-db-${process.pid}`;
let server: Awaited<ReturnType<typeof startPostgres>> | undefined;
let lite: Lite | undefined;
let frozen: number[] = [];

/** The postmaster and its children (the server's processes), from /proc. */
async function serverPids(adminUrl: string): Promise<number[]> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  const { rows } = await c.query<{ setting: string }>("SELECT setting FROM pg_settings WHERE name = 'data_directory'");
  await c.end();
  const pm = Number(readFileSync(`${rows[0]!.setting}/postmaster.pid`, "utf8").split("\n")[0]);
  const pids = [pm];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pm) pids.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return pids;
}

function signal(pids: number[], sig: NodeJS.Signals): void {
  for (const p of pids) {
    try {
      process.kill(p, sig);
    } catch {
      /* gone */
    }
  }
}

beforeAll(async () => {
  server = await startPostgres();
  const admin = new pg.Client({ connectionString: server.adminUrl });
  await admin.connect();
  await admin.query("CREATE DATABASE hung");
  await admin.end();
  lite = await startLite({ postgres: `postgres://postgres@127.0.0.1:${server.port}/hung` });
  const c = new SvcClient({ accountEndpoint: lite.url, basinEndpoint: lite.url, accessToken: lite.token });
  await c.basins.create(BASIN);
  await c.basin(BASIN).streams.create("s");
  await c.close();
}, 60_000);

afterAll(async () => {
  signal(frozen, "SIGCONT");
  await lite?.kill9().catch(() => undefined);
  await server?.stop();
});

describe("lite on a frozen PostgreSQL", () => {
  it("answers 503 quickly instead of holding the whole node, and serves again once the database answers", async () => {
    const raw = liteClient(lite!);
    const append = (body: string) =>
      raw.call("POST", "/v1/streams/s/records", { basin: BASIN, json: { records: [{ body }] } });
    expect((await append("before")).status).toBe(200);

    frozen = await serverPids(server!.adminUrl);
    signal(frozen, "SIGSTOP");
    const times: number[] = [];
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const t0 = performance.now();
      const r = await raw.call("GET", "/v1/streams/s/records/tail", { basin: BASIN });
      times.push(performance.now() - t0);
      statuses.push(r.status);
      if (r.status >= 500) expect(r.json().code).toBe("unavailable");
    }
    signal(frozen, "SIGCONT");
    frozen = [];
    console.log(
      `frozen database: check-tail answers ${statuses.join(",")} in ${times.map((t) => t.toFixed(0)).join(",")} ms`,
    );
    expect(statuses.every((s) => s === 503)).toBe(true);
    expect(times[0]!).toBeLessThan(8_000);
    for (const t of times.slice(1)) expect(t).toBeLessThan(1_000);

    // Back: the node serves again (the circuit closes once a probe is answered).
    const deadline = Date.now() + 20_000;
    let last = 0;
    while (Date.now() < deadline) {
      last = (await append("after")).status;
      if (last === 200) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(last).toBe(200);
    const tail = await raw.call("GET", "/v1/streams/s/records/tail", { basin: BASIN });
    expect(tail.json().tail.seq_num).toBeGreaterThanOrEqual(2);
    await raw.close();
  }, 90_000);
});
