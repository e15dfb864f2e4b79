/**
 * Draining (protocol.md §6.7; docs/design/reliability.md, "Draining"): four append sessions keep
 * many inputs in flight while svc lite gets SIGTERM and is restarted on the same port and data dir.
 * The server must ack what it accepted and end each session (A flag, then terminal 503
 * `server_draining`); the client must re-send only the unacknowledged inputs, in order, on a new
 * session. Afterwards: 0 records lost, 0 duplicated, each writer's records in order.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SvcClient } from "../../src/client/client.js";
import type { AppendAck } from "../../src/types.js";
import { freePort, type Lite, startLite } from "../helpers/lite.js";

const WRITERS = 4;
const INPUTS = 400;
const RECORDS_PER_INPUT = 5;
const CYCLES = Number(process.env.DRAIN_CYCLES ?? (process.env.RELIABILITY === "extended" ? 50 : 10));

const dir = mkdtempSync(join(tmpdir(), "svc-drain-"));
let lite: Lite | undefined;
afterAll(async () => {
  await lite?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const enc = new TextEncoder();
const dec = new TextDecoder();

describe("append sessions across a server drain and restart", () => {
  it(`loses and duplicates nothing over ${CYCLES} SIGTERM cycles`, async () => {
    const port = await freePort();
    lite = await startLite({ dataDir: join(dir, "data"), args: ["--port", String(port)] });
    expect(lite.port).toBe(port);
    const client = new SvcClient({ accountEndpoint: lite.url, basinEndpoint: lite.url, accessToken: lite.token });
    const basin = `drain-${process.pid}`;
    await client.basins.create(basin);
    await client.basin(basin).streams.create("shared");
    const stream = client.basin(basin).stream("shared");
    let reconnects = 0;

    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const writers = await Promise.all(
        Array.from({ length: WRITERS }, () =>
          stream.appender({ reconnectBudgetMs: 30_000, onReconnect: () => reconnects++ }),
        ),
      );
      let acked = 0;
      let stopped: Promise<number | null> | undefined;
      let ackedAtSignal = 0;
      const server = lite;
      const all: Promise<AppendAck>[] = [];
      writers.forEach((session, w) => {
        for (let i = 0; i < INPUTS; i++) {
          const records = Array.from({ length: RECORDS_PER_INPUT }, (_, j) => ({
            headers: [],
            body: enc.encode(`${cycle}:${w}:${i}:${j}`),
          }));
          all.push(
            session.append({ records }).then((a) => {
              // SIGTERM from inside the ack callback, once some but far from all inputs are acked.
              if (++acked === WRITERS * 8 && !stopped) {
                ackedAtSignal = acked;
                stopped = server.stop();
              }
              return a;
            }),
          );
        }
      });
      while (!stopped) await new Promise((r) => setTimeout(r, 1));
      expect(await stopped).toBe(0);
      expect(ackedAtSignal).toBeLessThan(WRITERS * INPUTS);
      await lite.restart();
      expect(lite.port).toBe(port);
      await Promise.all(all);
      await Promise.all(writers.map((s) => s.close()));
    }

    // Every writer's records exactly once and in submission order.
    const seen = new Map<string, number>();
    const perWriter = new Map<string, string[]>();
    let total = 0;
    for await (const ev of stream.read({ seqNum: 0 }, { wait: 0 })) {
      if (ev.type !== "batch") continue;
      for (const r of ev.records) {
        const body = dec.decode(r.body);
        seen.set(body, (seen.get(body) ?? 0) + 1);
        const [cycle, w] = body.split(":");
        const key = `${cycle}:${w}`;
        perWriter.set(key, [...(perWriter.get(key) ?? []), body]);
        total++;
      }
    }
    const expected = CYCLES * WRITERS * INPUTS * RECORDS_PER_INPUT;
    const duplicates = [...seen.values()].filter((n) => n > 1).length;
    console.log(`drain: ${CYCLES} cycles, ${total} records, ${reconnects} reconnects, ${duplicates} duplicated`);
    expect(duplicates).toBe(0);
    expect(total).toBe(expected);
    for (const [key, bodies] of perWriter) {
      const order = bodies.map((b) => {
        const [, , i, j] = b.split(":");
        return Number(i) * RECORDS_PER_INPUT + Number(j);
      });
      expect(order, `writer ${key} out of order`).toEqual([...order].sort((a, b) => a - b));
    }
    expect(reconnects).toBeGreaterThan(0);
    await client.close();
  }, 120_000);
});
