/**
 * Checking the checkers (docs/design/reliability.md, "Checking the checkers"): svc lite is started
 * with one deliberate bug at a time (src/lite/test-fault.ts; inert unless
 * SVC_LITE_TEST_FAULTS=enabled) and the suite that should notice it runs in miniature: an ordering
 * history of the relevant workflow, or a few kill -9 cycles. Each must FAIL the checker; a suite
 * that misses its seeded bug is broken. The table in docs/development.md "Reliability testing"
 * lists bug → catching check. `SEED=<seed> npx vitest run test/reliability/seeded-bugs.test.ts` replays.
 */
import { afterAll, describe, expect, it } from "vitest";
import { SvcClient } from "../../src/client/client.js";
import type { TestFault } from "../../src/lite/test-fault.js";
import type { AppendInput } from "../../src/types.js";
import { startFaultProxy } from "../helpers/fault-proxy.js";
import { Recorder, recordKey, type Verdict, verify } from "../helpers/history/index.js";
import { ackedTrimPoint, readFinal, runWorkload, type Workflow } from "../helpers/history/workload.js";
import { eventually, type Lite, startLite } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";
import { rng } from "../helpers/seeded.js";
import { suiteSeed } from "../helpers/tier.js";

const SEED = suiteSeed("seeded-bugs");
const enc = new TextEncoder();
const caught: string[] = [];

afterAll(() => {
  console.log(`seeded bugs SEED=${SEED}: caught ${caught.length}:\n  ${caught.join("\n  ")}`);
});

async function withFault<T>(
  fault: TestFault | undefined,
  run: (lite: Lite, client: SvcClient) => Promise<T>,
): Promise<T> {
  // A short sweep period: trims are carried out that long after them (protocol.md §7.7).
  const env: Record<string, string> = {
    SVC_LITE_SWEEP_MS: "100",
    ...(fault ? { SVC_LITE_TEST_FAULTS: "enabled", SVC_LITE_TEST_FAULT: fault } : {}),
  };
  const lite = await startLite({ dataDir: scratchDir("svc-seeded-"), env });
  const client = new SvcClient({
    accountEndpoint: lite.url,
    basinEndpoint: lite.url,
    accessToken: lite.token,
    timeoutMs: 5_000,
  });
  try {
    // The server says so on stderr (just after its export lines).
    if (fault) await eventually(async () => lite.stderr().includes(`TEST FAULT ACTIVE: ${fault}`), 5_000, 20);
    await client.basins.create("seeded-bugs");
    return await run(lite, client);
  } finally {
    await client.close();
    await lite.stop();
  }
}

/** One ordering history (no injected faults) of `workflow`. */
function ordering(fault: TestFault | undefined, workflow: Workflow, ops = 400, seed = SEED): Promise<Verdict> {
  return withFault(fault, async (_lite, client) => {
    const stream = client.basin("seeded-bugs").stream(workflow);
    await client.basin("seeded-bugs").streams.create(workflow);
    const rec = new Recorder({ seed, fault, workflow, trims: "async" });
    await runWorkload({ stream, name: workflow, recorder: rec, workflow, clients: 5, ops, random: rng(seed) });
    const final = await readFinal(stream, recordKey, 100, ackedTrimPoint(rec.ops, workflow));
    return verify(rec.history({ [workflow]: final }));
  });
}

/**
 * A bug that only some histories expose (trim-past-own shows only when a trim asked beyond the
 * tail lands before the records after it are read): up to `tries` histories, from SEED on,
 * until one catches it. (SEED=1674438712 ran one history that did not.)
 */
async function orderingTries(fault: TestFault, workflow: Workflow, tries = 3): Promise<Verdict> {
  let v = await ordering(fault, workflow);
  for (let i = 1; i < tries && v.ok; i++) v = await ordering(fault, workflow, 400, SEED + i);
  return v;
}

/** A few kill -9 cycles with unary and session writers and a following reader. */
function crash(fault: TestFault | undefined, cycles = 3): Promise<Verdict> {
  return withFault(fault, async (lite, admin) => {
    const random = rng(SEED);
    await admin.basin("seeded-bugs").streams.create("crash");
    const rec = new Recorder({ seed: SEED, fault, suite: "crash" });
    let n = 0;
    for (let cycle = 0; cycle < cycles; cycle++) {
      const c = new SvcClient({
        accountEndpoint: lite.url,
        basinEndpoint: lite.url,
        accessToken: lite.token,
        timeoutMs: 5_000,
      });
      const s = c.basin("seeded-bugs").stream("crash");
      const stop = new AbortController();
      const input = (): AppendInput => ({
        records: Array.from({ length: 1 + Math.floor(random() * 10) }, (_, i) => ({
          headers: [],
          body: enc.encode(`k|${n}|${i}|${"x".repeat(Math.floor(random() * 500))}`),
        })),
      });
      const unary = async (): Promise<void> => {
        while (!stop.signal.aborted) {
          n++;
          const inp = input();
          if (!(await rec.append(1, "crash", "unary", inp, () => s.append(inp)))) return;
        }
      };
      const tail0 = (await s.checkTail()).seqNum;
      const work = Promise.all([
        unary(),
        unary(),
        rec.readSession(
          3,
          "crash",
          tail0,
          Infinity,
          s.read({ seqNum: tail0 }, {}, { signal: stop.signal, retries: 0, follow: false }),
        ),
      ]);
      await new Promise((r) => setTimeout(r, 300 + random() * 700));
      await lite.kill9();
      stop.abort();
      await work;
      await c.close();
      await lite.restart();
      const p = new SvcClient({ accountEndpoint: lite.url, basinEndpoint: lite.url, accessToken: lite.token });
      const probe: AppendInput = { records: [{ headers: [], body: enc.encode(`probe|${cycle}|0|`) }] };
      await rec.append(9, "crash", "unary", probe, () => p.basin("seeded-bugs").stream("crash").append(probe));
      await p.close();
    }
    const d = new SvcClient({ accountEndpoint: lite.url, basinEndpoint: lite.url, accessToken: lite.token });
    const final = await readFinal(d.basin("seeded-bugs").stream("crash"), recordKey);
    await d.close();
    const h = rec.history({ crash: final });
    const v = verify(h);
    // The probe after each restart must land on the recovered tail (check 6 of §2.a).
    const probes = h.ops.filter((o) => o.client === 9);
    if (probes.some((o) => o.outcome !== "ok"))
      return {
        ...v,
        ok: false,
        summary: `${v.summary}\nprobe: an append after restart failed (${probes
          .map((o) => o.error)
          .filter(Boolean)
          .join(", ")})`,
      };
    return v;
  });
}

/**
 * Append sessions through a proxy that cuts every connection every 150 ms, with a client that
 * may carry the client-side seeded bug (src/client/test-fault.ts). A healthy session fails
 * with "outcome unknown" at a cut and the writer starts a new one; nothing is re-sent.
 */
function sessionsThroughCuts(fault: "resend-indefinite" | undefined): Promise<Verdict> {
  return withFault(undefined, async (lite, admin) => {
    await admin.basin("seeded-bugs").streams.create("cuts");
    const proxy = await startFaultProxy(Number(new URL(lite.url).port));
    const c = new SvcClient({
      accountEndpoint: proxy.url,
      basinEndpoint: proxy.url,
      accessToken: lite.token,
      timeoutMs: 5_000,
    });
    const rec = new Recorder({ seed: SEED, suite: "session-cuts", ...(fault ? { fault } : {}) });
    try {
      const s = c.basin("seeded-bugs").stream("cuts");
      const stop = AbortSignal.timeout(3_000);
      const cutter = setInterval(() => proxy.cutAll(), 150);
      let n = 0;
      while (!stop.aborted) {
        const session = await s
          .appender({ ackTimeoutMs: 5_000, reconnectBudgetMs: 5_000, ...(fault ? { testFault: fault } : {}) })
          .catch(() => undefined);
        if (!session) continue;
        let failed = false;
        const inflight = new Set<Promise<unknown>>();
        while (!stop.aborted && !failed) {
          const input: AppendInput = {
            records: Array.from({ length: 5 }, (_, i) => ({
              headers: [],
              body: enc.encode(`cuts|${n}|${i}|${"y".repeat(200)}`),
            })),
          };
          n++;
          const p = rec
            .append(1, "cuts", "session", input, () => session.append(input))
            .then((ack) => {
              if (!ack) failed = true;
            });
          inflight.add(p);
          void p.finally(() => inflight.delete(p));
          if (inflight.size >= 8) await Promise.race(inflight);
        }
        await Promise.all(inflight);
        await session.close().catch(() => undefined);
      }
      clearInterval(cutter);
      const d = new SvcClient({ accountEndpoint: lite.url, basinEndpoint: lite.url, accessToken: lite.token });
      const final = await readFinal(d.basin("seeded-bugs").stream("cuts"), recordKey);
      await d.close();
      return verify(rec.history({ cuts: final }));
    } finally {
      await c.close();
      await proxy.close();
    }
  });
}

describe("checking the checkers: each seeded bug is caught", () => {
  it("the healthy server passes the same miniature suites (no false alarms)", async () => {
    for (const w of ["regular", "match-seq-num", "fencing", "trim"] as Workflow[]) {
      const v = await ordering(undefined, w);
      expect(v.summary, w).toBe("");
    }
    expect((await crash(undefined)).summary).toBe("");
    expect((await sessionsThroughCuts(undefined)).summary).toBe("");
  }, 180_000);

  it("resend-indefinite (a client re-sends inputs whose outcome was unknown) is caught by append sessions through connection cuts (C3)", async () => {
    const v = await sessionsThroughCuts("resend-indefinite");
    expect(v.ok, `resend-indefinite went unnoticed (SEED=${SEED})`).toBe(false);
    expect(v.summary).toMatch(/C3/);
    caught.push(
      `resend-indefinite → append sessions through connection cuts (C3): ${v.summary.split("\n")[0]!.slice(0, 160)}`,
    );
  }, 60_000);

  const cases: [TestFault, string, () => Promise<Verdict>, RegExp][] = [
    [
      "ack-before-sync",
      "crash: kill -9 cycles (C1 acked lost / C7 read uncommitted)",
      () => crash("ack-before-sync", 5),
      /C1|C7|search/,
    ],
    ["ignore-match", "ordering match-seq-num (C5)", () => ordering("ignore-match", "match-seq-num"), /C5/],
    ["ignore-fence", "ordering fencing (C6)", () => ordering("ignore-fence", "fencing"), /C6/],
    ["skip-seq", "ordering regular (C1 acked range holds other records)", () => ordering("skip-seq", "regular"), /C1/],
    ["drop-last", "ordering regular (C1 acked record lost)", () => ordering("drop-last", "regular"), /C1/],
    ["reorder", "ordering regular (C1 acked range holds other records)", () => ordering("reorder", "regular"), /C1/],
    ["trim-past-own", "ordering trim (C8 / search)", () => orderingTries("trim-past-own", "trim"), /C8|C1|search/],
    ["tail-short", "crash: the append after restart (check 6)", () => crash("tail-short", 2), /probe/],
    ["read-skip", "a following read session in the crash miniature (C7)", () => crash("read-skip", 2), /C7/],
  ];
  it.each(cases)(
    "%s is caught by %s",
    async (fault, by, run, expected) => {
      const v = await run();
      expect(v.ok, `${fault} went unnoticed by ${by} (SEED=${SEED})`).toBe(false);
      expect(v.summary).toMatch(expected);
      caught.push(`${fault} → ${by}: ${v.summary.split("\n")[0]!.slice(0, 160)}`);
    },
    120_000,
  );
});
