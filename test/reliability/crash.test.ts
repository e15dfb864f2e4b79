/**
 * Crash safety of svc lite (docs/design/reliability.md, "Crash safety"): four writers keep appends
 * in flight and two readers follow while the server is SIGKILLed at a seeded random moment, then
 * restarted on the same data dir and port:
 *
 *   W1 unary appends to stream a (4 lanes, 1 % of batches near 1 MiB)
 *   W2 an append session on stream a, up to 8 batches pipelined
 *   W3 a match_seq_num chain on stream b under its own fencing token (fenced each cycle)
 *   W4 stream c: data under a fencing token, interleaved fence and trim commands
 *   R1, R2 read sessions following a and b
 *
 * 15 % of cycles also kill the next server during its recovery (0-400 ms after spawn: lite opens
 * its data dir about 0.3 s after spawn, from its server thread, and recovers there), 10 %
 * freeze it (SIGSTOP 1-2 s) before the kill. After every restart the whole recorded history
 * (all cycles so far) goes through the ordering checker (C1-C8 + search: every acked batch at
 * its range byte for byte, no gap, duplicate, phantom, torn batch, records a reader saw never
 * vanish, the trim point is the one the applied trims set), and probes check that the next
 * append lands exactly on the recovered tail and that a wrong fencing token gets 412 naming a
 * token the history's fences allow (C6). CI 25 cycles, extended 200
 * (CRASH_CYCLES overrides); `SEED=<seed> npx vitest run test/reliability/crash.test.ts` replays.
 *
 * Cycles run in epochs of 25 (CRASH_EPOCH overrides) on the same server and data dir: each epoch
 * writes fresh streams (a1, b1, c1; then a2, ...) under its own recorder, so the checker's work
 * per restart stays that of one epoch instead of growing with the whole run. Within an epoch,
 * the growing streams are re-read after each restart from 1,000 records before their last
 * checked tail, and in full when the epoch closes. A closed epoch's streams are never written
 * again: their tails are checked after every later epoch, and their content digest (every seq
 * num, record key, first and tail), taken when the epoch closed, is checked again at the end,
 * so records acked in epoch 1 must still be there, byte for byte, after 175 more kill -9s.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SvcClient } from "../../src/client/client.js";
import type { StreamClient } from "../../src/client/stream.js";
import { fenceRecord, trimRecord } from "../../src/rules/commands.js";
import type { AppendInput, AppendRecord } from "../../src/types.js";
import { keepArtifacts } from "../helpers/artifacts.js";
import { freePort } from "../helpers/free-port.js";
import { type FinalStream, historyLines, Recorder, recordKey, type Verdict, verify } from "../helpers/history/index.js";
import { ackedTrimPoint, readFinal, readFinalFrom } from "../helpers/history/workload.js";
import { type Lite, SVC_BIN, spawnLite, startLite } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";
import { rng } from "../helpers/seeded.js";
import { EXTENDED, suiteSeed, tierCount } from "../helpers/tier.js";

const SEED = suiteSeed("crash");
const CYCLES = tierCount(25, 200, "CRASH_CYCLES");
const EPOCH = tierCount(25, 25, "CRASH_EPOCH");
const random = rng(SEED);
const int = (lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));
const enc = new TextEncoder();
const STREAMS = ["a", "b", "c"] as const;

let lite: Lite;
let port: number;
let dataDir: string;
const basin = `crash-${process.pid}`;
let rec = new Recorder({ seed: SEED, suite: "crash", trims: "async" });
/** The stream names of the current epoch: the recorder and checker see a, b, c. */
let epoch = 1;
const physical = (name: string): string => `${name}${epoch}`;

function client(): SvcClient {
  return new SvcClient({
    accountEndpoint: lite.url,
    basinEndpoint: lite.url,
    accessToken: lite.token,
    timeoutMs: 5_000,
  });
}

function records(writer: string, n: number, big = false): AppendRecord[] {
  if (big) return [{ headers: [], body: enc.encode(`${writer}|${n}|0|${"B".repeat(900_000 + int(0, 100_000))}`) }];
  return Array.from({ length: int(1, 20) }, (_, i) => ({
    headers: [],
    body: enc.encode(`${writer}|${n}|${i}|${"x".repeat(int(16, 2000))}`),
  }));
}

interface CycleState {
  tokenB: string;
  tokenC: string;
  tails: Record<string, number>;
}

/** W1: unconditioned unary appends, 4 lanes. */
async function w1(s: StreamClient, tag: string, stop: AbortSignal): Promise<void> {
  let n = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (!stop.aborted) {
        const input: AppendInput = { records: records(`${tag}w1`, n++, random() < 0.01) };
        if (!(await rec.append(1, "a", "unary", input, () => s.append(input)))) return;
      }
    }),
  );
}

/** W2: an append session with up to 8 inputs in flight. */
async function w2(s: StreamClient, tag: string, stop: AbortSignal): Promise<void> {
  const session = await s.appender({ ackTimeoutMs: 5_000, reconnectBudgetMs: 0 }).catch(() => undefined);
  if (!session) return;
  let n = 0;
  const inflight = new Set<Promise<unknown>>();
  let failed = false;
  while (!stop.aborted && !failed) {
    const input: AppendInput = { records: records(`${tag}w2`, n++) };
    const p = rec
      .append(2, "a", "session", input, () => session.append(input))
      .then((ack) => {
        if (!ack) failed = true;
      });
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
    if (inflight.size >= 8) await Promise.race(inflight);
  }
  await Promise.all(inflight);
  void session.close().catch(() => undefined);
}

/** W3: fences stream b with a new token, then a match_seq_num chain under it. */
async function w3(s: StreamClient, tag: string, st: CycleState, stop: AbortSignal): Promise<void> {
  let next = st.tails.b!;
  const token = `${tag}w3`;
  const fence: AppendInput = {
    records: [{ headers: [], body: enc.encode(`${tag}w3|fence|0|`) }, fenceRecord(token)],
    matchSeqNum: next,
    fencingToken: st.tokenB,
  };
  const ack = await rec.append(3, "b", "unary", fence, () => s.append(fence));
  if (!ack) return;
  next = ack.end.seqNum;
  let n = 0;
  while (!stop.aborted) {
    const input: AppendInput = { records: records(`${tag}w3`, n++), matchSeqNum: next, fencingToken: token };
    const a = await rec.append(3, "b", "unary", input, () => s.append(input));
    if (!a) return;
    next = a.end.seqNum;
  }
}

/** W4: stream c, data under the current token, with fence and trim commands mixed in. */
async function w4(s: StreamClient, tag: string, st: CycleState, stop: AbortSignal): Promise<void> {
  let token = st.tokenC;
  let tail = st.tails.c!;
  let n = 0;
  while (!stop.aborted) {
    const roll = random();
    const recs = records(`${tag}w4`, n++);
    let newToken: string | undefined;
    if (roll < 0.15) {
      newToken = `${tag}w4t${n}`;
      recs.push(fenceRecord(newToken));
    } else if (roll < 0.3 && tail > 10) recs.push(trimRecord(tail - int(0, 10)));
    const input: AppendInput = { records: recs, fencingToken: token };
    const a = await rec.append(4, "c", "unary", input, () => s.append(input));
    if (!a) return;
    tail = a.end.seqNum;
    if (newToken !== undefined) token = newToken;
  }
}

/** R1/R2: follow a stream with a read session from `from` until the server dies. */
async function follow(s: StreamClient, name: string, clientId: number, from: number, stop: AbortSignal): Promise<void> {
  await rec.readSession(
    clientId,
    name,
    from,
    Infinity,
    s.read({ seqNum: from }, {}, { signal: stop, retries: 0, follow: false }),
  );
}

/**
 * Every stream of the epoch as it is now. `prev` (the last cycle's): streams a and b, which
 * grow by up to hundreds of MiB per epoch and are never trimmed, are read again only from 1,000
 * records before their last tail (readFinalFrom); c (trimmed) always in full. Each epoch ends
 * with a full read of everything (closeEpoch), so nothing goes unread.
 */
async function finals(prev?: Record<string, FinalStream>): Promise<Record<string, FinalStream>> {
  const c = client();
  const out: Record<string, FinalStream> = {};
  for (const name of STREAMS) {
    const s = c.basin(basin).stream(physical(name));
    const before = name === "c" ? undefined : prev?.[name];
    // Trims are carried out a sweep period after them (protocol.md §7.7): c's final read waits.
    out[name] = before
      ? await readFinalFrom(s, recordKey, before)
      : await readFinal(s, recordKey, 0, ackedTrimPoint(rec.ops, name));
  }
  await c.close();
  return out;
}

/** A content digest of a stream as the checker sees it: first, tail, and every (seq, key). */
function digest(f: FinalStream): string {
  const h = createHash("sha256").update(`${f.first}:${f.tail}`);
  for (const r of f.records) h.update(`|${r.seq}:${r.key}`);
  return `${f.tail} records, sha256 ${h.digest("hex").slice(0, 16)}`;
}

async function createEpochStreams(): Promise<void> {
  const c = client();
  for (const s of STREAMS)
    await c.basin(basin).streams.create(physical(s), { config: { retention_policy: { infinite: {} } } });
  await c.close();
}

/** Spawns a server on the data dir and SIGKILLs it `ms` later, usually mid-recovery. */
async function killDuringRecovery(ms: number): Promise<void> {
  const child = spawn(process.execPath, [SVC_BIN, "lite", "--data-dir", dataDir, "--port", String(port)], {
    detached: true,
    stdio: "ignore",
  });
  const exited = new Promise((r) => child.once("exit", r));
  await new Promise((r) => setTimeout(r, ms));
  try {
    process.kill(-child.pid!, "SIGKILL");
  } catch {
    /* gone */
  }
  await exited;
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
}

describe("crash safety: kill -9 with writers and readers in flight", () => {
  beforeAll(async () => {
    port = await freePort();
    dataDir = scratchDir("svc-crash-");
    lite = await startLite({ dataDir, args: ["--port", String(port)], env: { SVC_LITE_SWEEP_MS: "100" } });
    const c = client();
    await c.basins.create(basin);
    await c.close();
    await createEpochStreams();
  });
  afterAll(async () => {
    await lite?.stop();
  });

  it(
    `keeps every acknowledged record over ${CYCLES} cycles (SEED=${SEED})`,
    async () => {
      let st: CycleState = { tokenB: "", tokenC: "", tails: { a: 0, b: 0, c: 0 } };
      const recovery: number[] = [];
      let recoveryKills = 0;
      let freezes = 0;
      let restartFailures = 0;
      const totals = { ackedRecords: 0, acked: 0, indefinite: 0, stored: 0 };
      /** Digests and tails of closed epochs' streams, by physical name. */
      const closed = new Map<string, { digest: string; tail: number }>();
      /** Closed streams keep their tails (every epoch) and their every record (`full`: at the end). */
      const recheckClosed = async (when: string, full: boolean): Promise<void> => {
        const c = client();
        for (const [name, want] of closed) {
          const s = c.basin(basin).stream(name);
          if (full)
            expect(
              digest(await readFinal(s, recordKey, 0)),
              `SEED=${SEED} ${when}: closed stream ${name} changed`,
            ).toBe(want.digest);
          else
            expect((await s.checkTail()).seqNum, `SEED=${SEED} ${when}: closed stream ${name} moved`).toBe(want.tail);
        }
        await c.close();
      };
      /** What happened to the servers, cycle by cycle: kept with the data dir if a check fails. */
      const events: string[] = [`started pid ${lite.pid} at ${lite.url} on ${dataDir}`];
      /** The epoch's history checked against `final`; on failure the artifacts are kept first. */
      const checked = (final: Record<string, FinalStream>, where: string): Verdict => {
        const h = rec.history(final);
        const v = verify(h);
        if (!v.ok)
          keepArtifacts(
            "crash",
            SEED,
            {
              "verdict.txt": v.summary,
              "history.jsonl": historyLines(h),
              "events.txt": events,
              "lite.stderr": lite.stderr(),
            },
            { data: dataDir },
          );
        expect(v.summary, `SEED=${SEED} ${where}`).toBe("");
        return v;
      };
      const closeEpoch = async (): Promise<void> => {
        const final = await finals();
        const s = checked(final, `epoch ${epoch}`).direct.stats;
        totals.ackedRecords += s.ackedRecords;
        totals.acked += s.acked;
        totals.indefinite += s.indefinite;
        for (const name of STREAMS) {
          totals.stored += final[name]!.tail;
          closed.set(physical(name), { digest: digest(final[name]!), tail: final[name]!.tail });
        }
      };
      let last: Record<string, FinalStream> | undefined;
      const started = Date.now();
      let cycle = 1;
      try {
        for (; cycle <= CYCLES; cycle++) {
          if (cycle > 1 && (cycle - 1) % EPOCH === 0) {
            const t = Date.now();
            await closeEpoch();
            await recheckClosed(`before epoch ${epoch + 1}`, false);
            process.stderr.write(`[crash] epoch ${epoch} closed (its streams read in full) in ${Date.now() - t} ms\n`);
            epoch++;
            rec = new Recorder({ seed: SEED, suite: `crash-epoch${epoch}`, trims: "async" });
            st = { tokenB: "", tokenC: "", tails: { a: 0, b: 0, c: 0 } };
            last = undefined;
            await createEpochStreams();
          }
          const tCycle = Date.now();
          const stop = new AbortController();
          const c = client();
          const s = (name: string) => c.basin(basin).stream(physical(name));
          const tag = `y${cycle}`;
          const work = Promise.all([
            w1(s("a"), tag, stop.signal),
            w2(s("a"), tag, stop.signal),
            w3(s("b"), tag, st, stop.signal),
            w4(s("c"), tag, st, stop.signal),
            follow(s("a"), "a", 5, st.tails.a!, stop.signal),
            follow(s("b"), "b", 6, st.tails.b!, stop.signal),
          ]);
          await new Promise((r) => setTimeout(r, int(300, EXTENDED ? 3000 : 1500)));
          if (random() < 0.1) {
            freezes++;
            process.kill(-lite.pid!, "SIGSTOP");
            await new Promise((r) => setTimeout(r, int(1000, 2000)));
          }
          await lite.kill9();
          stop.abort();
          await work;
          await c.close();
          const killedPid = lite.pid;
          const recoveryKill = random() < 0.15 ? int(0, 400) : undefined;
          if (recoveryKill !== undefined) {
            recoveryKills++;
            await killDuringRecovery(recoveryKill);
          }
          const t0 = Date.now();
          try {
            await lite.restart();
          } catch (e) {
            restartFailures++;
            throw e;
          }
          recovery.push(Date.now() - t0);
          events.push(
            `cycle ${cycle} (epoch ${epoch}): killed pid ${killedPid}${recoveryKill !== undefined ? `, a server killed ${recoveryKill} ms into recovery` : ""}; restarted as pid ${lite.pid} at ${lite.url} in ${Date.now() - t0} ms`,
          );

          const tRead = Date.now();
          const final = await finals(last);
          last = final;
          const tVerify = Date.now();
          checked(final, `cycle ${cycle} (epoch ${epoch})`);
          if (EXTENDED || process.env.CRASH_VERBOSE) {
            process.stderr.write(
              `[crash] cycle ${cycle}/${CYCLES} (epoch ${epoch}): ${final.a!.tail + final.b!.tail + final.c!.tail} records; ` +
                `work+kill+restart ${tRead - tCycle} ms, read ${tVerify - tRead} ms, verify ${Date.now() - tVerify} ms (${rec.ops.length} ops); ${Math.round((Date.now() - started) / 1000)} s in\n`,
            );
          }

          // Probes: the next append lands on the recovered tail; the tokens and trim point survived.
          const p = client();
          for (const name of STREAMS) st.tails[name] = final[name]!.tail;
          const probe: AppendInput = { records: [{ headers: [], body: enc.encode(`${tag}probe|0|0|`) }] };
          const ack = await rec.append(9, "a", "unary", probe, () =>
            p.basin(basin).stream(physical("a")).append(probe),
          );
          expect(ack?.start.seqNum, `SEED=${SEED} cycle ${cycle}: seq num reuse`).toBe(final.a!.tail);
          // The fencing tokens survived: a wrong token gets 412 naming the current one, which the
          // checker (C6, next cycle) holds against the fences the history applied.
          for (const name of ["b", "c"] as const) {
            const wrong: AppendInput = {
              records: [{ headers: [], body: enc.encode(`${tag}probe${name}|0|0|`) }],
              fencingToken: "never-a-token",
            };
            await rec.append(9, name, "unary", wrong, () => p.basin(basin).stream(physical(name)).append(wrong));
            const last = rec.ops[rec.ops.length - 1]!;
            expect(
              last.kind === "append" && last.error,
              `SEED=${SEED} cycle ${cycle}: fencing token of ${name} after recovery`,
            ).toBe("fencing_token_mismatch");
            if (last.kind === "append") st[name === "b" ? "tokenB" : "tokenC"] = last.currentToken!;
          }
          st.tails.a = ack!.end.seqNum;
          await p.close();
        }
      } catch (e) {
        if (!(e instanceof Error && e.name === "AssertionError")) {
          keepArtifacts(
            "crash",
            SEED,
            {
              "error.txt": `cycle ${cycle}: ${(e as Error)?.stack ?? String(e)}`,
              "events.txt": events,
              "lite.stderr": lite.stderr(),
            },
            { data: dataDir },
          );
        }
        throw e;
      }
      await closeEpoch();
      const tEnd = Date.now();
      await recheckClosed("at the end", true);
      process.stderr.write(
        `[crash] ${closed.size} streams of ${epoch} epochs re-read in full in ${Date.now() - tEnd} ms\n`,
      );
      console.log(
        `crash SEED=${SEED}: ${CYCLES} kill -9 cycles in ${epoch} epoch(s) (${recoveryKills} killed again during recovery, ${freezes} frozen first), restart failures ${restartFailures}; ` +
          `${totals.ackedRecords} acked records in ${totals.acked} acked batches, ${totals.indefinite} indefinite ops; ` +
          `acked_lost 0, duplicates 0, gaps 0, torn 0, seq_reused 0, phantoms 0; recovery p50 ${percentile(recovery, 50)} ms p99 ${percentile(recovery, 99)} ms ` +
          `(${totals.stored} records stored in ${closed.size} streams, all re-read at the end)`,
      );
      expect(totals.ackedRecords).toBeGreaterThan(0);
    },
    EXTENDED ? 3_000_000 : 500_000,
  );

  it(`a server frozen (SIGSTOP) for longer than the readers' heartbeat timeout loses nothing (SEED=${SEED})`, async () => {
    const freezeMs = EXTENDED ? 21_000 : 6_000;
    const frozen = new Recorder({ seed: SEED, suite: "crash-sigstop" });
    const c = new SvcClient({
      accountEndpoint: lite.url,
      basinEndpoint: lite.url,
      accessToken: lite.token,
      timeoutMs: 3_000,
    });
    await c.basin(basin).streams.create("frozen");
    const s = c.basin(basin).stream("frozen");
    const stop = new AbortController();
    let n = 0;
    const unary = (async () => {
      while (!stop.signal.aborted) {
        const input: AppendInput = { records: records("fz-u", n++) };
        if (!(await frozen.append(1, "frozen", "unary", input, () => s.append(input))))
          await new Promise((r) => setTimeout(r, 200));
      }
    })();
    const sessionWriter = (async () => {
      while (!stop.signal.aborted) {
        const session = await s.appender({ ackTimeoutMs: 3_000, reconnectBudgetMs: 0 }).catch(() => undefined);
        if (!session) {
          await new Promise((r) => setTimeout(r, 200));
          continue;
        }
        while (!stop.signal.aborted) {
          const input: AppendInput = { records: records("fz-s", n++) };
          if (!(await frozen.append(2, "frozen", "session", input, () => session.append(input)))) break;
        }
        void session.close().catch(() => undefined);
      }
    })();
    const reader = frozen.readSession(
      5,
      "frozen",
      0,
      Infinity,
      s.read(
        { seqNum: 0 },
        {},
        { signal: stop.signal, heartbeatTimeoutMs: freezeMs - 2_000, retries: 100, follow: false },
      ),
    );
    await new Promise((r) => setTimeout(r, 1_000));
    process.kill(-lite.pid!, "SIGSTOP");
    await new Promise((r) => setTimeout(r, freezeMs));
    process.kill(-lite.pid!, "SIGCONT");
    await new Promise((r) => setTimeout(r, 1_500));
    stop.abort();
    await Promise.all([unary, sessionWriter, reader]);
    await c.close();
    const d = client();
    const h = frozen.history({ frozen: await readFinal(d.basin(basin).stream("frozen"), recordKey) });
    await d.close();
    const v = verify(h);
    if (!v.ok) keepArtifacts("crash-sigstop", SEED, { "verdict.txt": v.summary, "history.jsonl": historyLines(h) });
    const session = h.ops.find((o) => o.kind === "read-session");
    const delivered =
      session?.kind === "read-session"
        ? session.events.reduce((k, e) => k + ("records" in e ? e.records.length : 0), 0)
        : 0;
    console.log(
      `crash SIGSTOP ${freezeMs} ms: ${v.direct.stats.acked} acked appends, ${v.direct.stats.indefinite} indefinite, reader got ${delivered} of ${h.final.frozen!.tail} records`,
    );
    expect(v.summary).toBe("");
    expect(delivered).toBeGreaterThan(0);
  }, 120_000);

  it("refuses a second server on the same data dir, and restarts after kill -9", async () => {
    const err = await spawnLite(["--port", "0", "--data-dir", dataDir]).then(
      () => "started",
      (e: Error) => e.message,
    );
    expect(err).toMatch(/another svc lite server is already using the data dir/);
    await lite.kill9();
    await lite.restart();
    const c = client();
    expect((await c.basin(basin).stream(physical("a")).checkTail()).seqNum).toBeGreaterThan(0);
    await c.close();
  });
});
