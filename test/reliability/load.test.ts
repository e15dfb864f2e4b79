/**
 * Load on svc lite (docs/design/reliability.md, "Load"; a smoke in CI, longer in the extended
 * tier):
 *
 *   L1 fan-out: 1 writer, 200 read sessions tailing one stream: every reader gapless and
 *      complete; p50/p99 ack→delivery latency and peak RSS reported
 *   L2 1,000 streams: created, appended to, checked and listed, 0 errors
 *   L3 2,000 idle connections: 1,000 silent TCP connections + 1,000 read sessions at the
 *      tail, each on its own connection; every session sees heartbeats, max gap ≤ 15 s
 *   L6 churn: 20,000 requests on fresh connections, 20 % cut mid-body: 0 unexpected errors,
 *      open fds back to baseline (± 5, counted in /proc/PID/fd)
 *
 * Slowloris and two servers on one dir in the same instant are pinned by
 * test/regressions/slow-and-idle-clients-never-cut and two-lites-on-one-data-dir; a read-only
 * data dir by read-only-data-dir-blamed-on-enoent.
 */
import { setMaxListeners } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SvcClient } from "../../src/client/client.js";
import { FrameParser } from "../../src/wire/framing.js";
import { type Lite, startLite } from "../helpers/lite.js";

/** L3 opens 2,000 connections from one address; lite's default cap is 256 (docs/security.md). */
const MANY_CONNECTIONS = { SVC_LITE_CONNECTIONS_PER_ADDRESS: "4096" };

import { tierCount } from "../helpers/tier.js";

const FANOUT_SECONDS = tierCount(5, 60, "LOAD_FANOUT_SECONDS");
const IDLE_SECONDS = tierCount(20, 60, "LOAD_IDLE_SECONDS");
const CHURN = tierCount(20_000, 100_000, "LOAD_CHURN");
const basin = `load-basin-${process.pid}`;
let lite: Lite;
let client: SvcClient;
const enc = new TextEncoder();

const status = (field: string): number =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${lite.pid}/status`, "utf8"))![1]) / 1024;
const fds = (): number => readdirSync(`/proc/${lite.pid}/fd`).length;
const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

beforeAll(async () => {
  lite = await startLite({ env: MANY_CONNECTIONS });
  client = new SvcClient({ accountEndpoint: lite.url, basinEndpoint: lite.url, accessToken: lite.token });
  await client.basins.create(basin);
});
afterAll(async () => {
  await client?.close();
  await lite?.stop();
});

describe("load", () => {
  it(`L1 fan-out: 200 readers tail one stream for ${FANOUT_SECONDS} s, all gapless and complete`, async () => {
    await client.basin(basin).streams.create("fan");
    const s = client.basin(basin).stream("fan");
    const acked = new Map<number, number>(); // first seq → ack time
    const latencies: number[] = [];
    const ac = new AbortController();
    setMaxListeners(250, ac.signal); // 200 readers share it, each with one listener while it reads
    const progress = new Array<number>(200).fill(0);
    const readers = Array.from({ length: 200 }, async (_, k) => {
      let next = 0;
      let errors = 0;
      try {
        for await (const ev of s.read({ seqNum: 0 }, {}, { signal: ac.signal })) {
          if (ev.type !== "batch") continue;
          for (const r of ev.records) {
            if (r.seqNum !== next) errors++;
            next = r.seqNum + 1;
          }
          progress[k] = next;
          const t = acked.get(ev.records[0]!.seqNum);
          latencies.push(t === undefined ? 0 : Math.max(0, Date.now() - t));
        }
      } catch (e) {
        if (!ac.signal.aborted) throw e;
      }
      return { next, errors };
    });
    await new Promise((r) => setTimeout(r, 500));
    const session = await s.appender();
    const body = enc.encode("x".repeat(1024));
    const end = Date.now() + FANOUT_SECONDS * 1000;
    let tail = 0;
    let peak = 0;
    const pending: Promise<void>[] = [];
    while (Date.now() < end) {
      // Pipelined, one 64 KiB batch every 100 ms (≈ 640 KiB/s in, 125 MiB/s out to 200
      // readers): all 200 readers live in this one test process, which is the bottleneck of
      // a small machine long before lite is.
      pending.push(
        session.append({ records: Array.from({ length: 64 }, () => ({ headers: [], body })) }).then((ack) => {
          acked.set(ack.start.seqNum, Date.now());
          tail = Math.max(tail, ack.end.seqNum);
        }),
      );
      peak = Math.max(peak, status("VmRSS"));
      await new Promise((r) => setTimeout(r, 100));
    }
    await Promise.all(pending);
    await session.close();
    const deadline = Date.now() + 30_000;
    const done = Promise.all(readers);
    // Readers end when aborted; give them until every one has seen the tail.
    while (Date.now() < deadline && progress.some((p) => p < tail)) await new Promise((r) => setTimeout(r, 100));
    ac.abort();
    const results = await done;
    console.log(
      `L1 fan-out: ${acked.size} batches in ${FANOUT_SECONDS} s (${tail} records) to 200 readers; ack→delivery p50 ${pct(latencies, 50)} ms p99 ${pct(latencies, 99)} ms; lite RSS peak ${peak.toFixed(0)} MiB`,
    );
    expect(results.filter((r) => r.errors > 0 || r.next !== tail)).toEqual([]);
    expect(peak).toBeLessThan(400);
  }, 120_000);

  it("L2 1,000 streams: created, appended to, checked and listed without errors", async () => {
    const b = client.basin(basin);
    const names = Array.from({ length: 1000 }, (_, i) => `many-${String(i).padStart(4, "0")}`);
    for (let i = 0; i < names.length; i += 50) {
      await Promise.all(
        names.slice(i, i + 50).map(async (n) => {
          await b.streams.create(n);
          await b.stream(n).append({ records: [{ headers: [], body: enc.encode(n) }] });
          expect((await b.stream(n).checkTail()).seqNum).toBe(1);
        }),
      );
    }
    let listed = 0;
    let after = "";
    for (;;) {
      const page = await b.streams.list({ prefix: "many-", startAfter: after, limit: 1000 });
      listed += page.items.length;
      if (!page.hasMore || page.items.length === 0) break;
      after = page.items[page.items.length - 1]!.name;
    }
    expect(listed).toBe(1000);
  }, 120_000);

  it(`L3 2,000 idle connections for ${IDLE_SECONDS} s: sessions get heartbeats, gaps ≤ 15 s`, async () => {
    // What idle sessions cost (L3 of docs/design/reliability.md, "Load": RSS ≤ 300 MiB) is measured
    // on a fresh server: the heap high-water mark L1's 200 busy readers leave behind is not theirs.
    await client.close();
    await lite.stop();
    lite = await startLite({ env: MANY_CONNECTIONS });
    client = new SvcClient({ accountEndpoint: lite.url, basinEndpoint: lite.url, accessToken: lite.token });
    await client.basins.create(basin);
    await client.basin(basin).streams.create("idle");
    const rssBefore = status("VmRSS");
    const u = new URL(lite.url);
    const base = fds();
    const silent = await Promise.all(
      Array.from(
        { length: 1000 },
        () =>
          new Promise<net.Socket>((res, rej) => {
            const sock = net.connect(Number(u.port), u.hostname, () => res(sock));
            sock.on("error", rej);
          }),
      ),
    );
    const gaps: number[] = [];
    const sessions = await Promise.all(
      Array.from(
        { length: 1000 },
        () =>
          new Promise<{ req: http.ClientRequest; arrivals: number[]; frames: () => number }>((res, rej) => {
            const arrivals: number[] = [];
            const parser = new FrameParser();
            let count = 0;
            const req = http.get(
              `${lite.url}/v1/streams/idle/records?seq_num=0`,
              {
                agent: false,
                headers: { authorization: `Bearer ${lite.token}`, "svc-basin": basin, "content-type": "svc/proto" },
              },
              (r) => {
                if (r.statusCode !== 200) rej(new Error(`session status ${r.statusCode}`));
                arrivals.push(Date.now());
                r.on("data", (chunk: Buffer) => {
                  arrivals.push(Date.now());
                  parser.push(chunk);
                  while (parser.next()) count++;
                });
                r.on("error", () => undefined);
                res({ req, arrivals, frames: () => count });
              },
            );
            req.on("error", rej);
          }),
      ),
    );
    const opened = Date.now();
    const peakFds = fds();
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    for (const s of sessions) {
      const times = [...s.arrivals, Date.now()];
      for (let i = 1; i < times.length; i++) gaps.push(times[i]! - times[i - 1]!);
    }
    const rss = status("VmRSS");
    // The server is still responsive with all of them open.
    expect((await client.basin(basin).stream("idle").checkTail()).seqNum).toBe(0);
    const withHeartbeat = sessions.filter((s) => s.frames() > 0).length;
    for (const s of sessions) s.req.destroy();
    for (const s of silent) s.destroy();
    console.log(
      `L3 idle: 1000 silent connections + 1000 read sessions for ${((Date.now() - opened) / 1000).toFixed(0)} s; fds ${base} → ${peakFds}; ` +
        `sessions with heartbeats ${withHeartbeat}/1000; max gap ${Math.max(...gaps)} ms; lite RSS ${rssBefore.toFixed(0)} → ${rss.toFixed(0)} MiB`,
    );
    expect(peakFds - base).toBeGreaterThanOrEqual(2000);
    expect(withHeartbeat).toBe(1000);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(16_000);
    expect(rss).toBeLessThan(300);
  }, 180_000);

  it(`L6 churn: ${CHURN} requests on fresh connections (20 % cut mid-body) leak no fds`, async () => {
    await client.basin(basin).streams.create("churn");
    const u = new URL(lite.url);
    await new Promise((r) => setTimeout(r, 200));
    const base = fds();
    let n = 0;
    let errors = 0;
    const one = (i: number): Promise<void> =>
      new Promise((resolve) => {
        if (i % 5 === 0) {
          // A body promised and cut half-way.
          const sock = net.connect(Number(u.port), u.hostname, () => {
            sock.write(
              `POST /v1/streams/churn/records HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${lite.token}\r\nsvc-basin: ${basin}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"records":`,
            );
            setImmediate(() => {
              sock.resetAndDestroy();
              resolve();
            });
          });
          sock.on("error", () => resolve());
          return;
        }
        const req = http.get(
          `${lite.url}/v1/streams/churn/records/tail`,
          { agent: false, headers: { authorization: `Bearer ${lite.token}`, "svc-basin": basin } },
          (r) => {
            if (r.statusCode !== 200) errors++;
            r.resume();
            r.on("end", resolve);
          },
        );
        req.on("error", () => {
          errors++;
          resolve();
        });
      });
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (n < CHURN) await one(n++);
      }),
    );
    let after = fds();
    for (let i = 0; i < 50 && after > base + 5; i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = fds();
    }
    console.log(
      `L6 churn: ${CHURN} requests, ${errors} errors; lite fds ${base} → ${after}; RSS ${status("VmRSS").toFixed(0)} MiB`,
    );
    expect(errors).toBe(0);
    expect(Math.abs(after - base)).toBeLessThanOrEqual(5);
    expect(lite.stderr()).not.toMatch(/unhandled|internal error/i);
  }, 240_000);
});
