/**
 * cli/append and cli/read run pieces: the batch pipe (conditions per batch, dry run, a failure stops
 * later batches), throttling, the tally's words and JSON, the read side's cut and emitter,
 * checkpoints, and progress through the one output module.
 */

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { BatchPipe, throttleDue } from "../../../src/cli/append/append-pipe.js";
import { type AppendPlan, inputPolicy } from "../../../src/cli/append/append-run.js";
import { AppendTally } from "../../../src/cli/append/append-tally.js";
import type { Batch } from "../../../src/cli/append/batcher.js";
import { Output } from "../../../src/cli/output.js";
import { progressMode, ReadProgress, StatusTicker } from "../../../src/cli/progress.js";
import { readCheckpoint, writeCheckpoint } from "../../../src/cli/read/checkpoint.js";
import { BatchEmitter, cutAtSeq, IdleTimer, type ReadSinkPlan } from "../../../src/cli/read/read-run.js";
import { RecordWriter } from "../../../src/cli/read/record-writer.js";
import { Appender } from "../../../src/client/appender.js";
import type { StreamClient } from "../../../src/client/stream.js";
import { UnaryAppends } from "../../../src/client/unary-appends.js";
import { SvcError } from "../../../src/errors.js";
import type { AppendAck, AppendInput, SequencedRecord } from "../../../src/types.js";
import { scratchDir } from "../../helpers/scratch.js";

const pos = (n: number) => ({ seqNum: n, timestamp: 1000 + n });
const batch = (n: number, bytes = 10): Batch => ({
  records: Array.from({ length: n }, (_, i) => ({
    record: { headers: [], body: Buffer.from(`r${i}`) },
    size: bytes / n,
    where: `in:${i}`,
  })),
  bytes,
});

/** A stream whose unary appends are recorded and acked in order (or fail on request). */
function fakeStream(failAt?: number) {
  const inputs: AppendInput[] = [];
  let tail = 0;
  const stream = {
    append: async (input: AppendInput): Promise<AppendAck> => {
      inputs.push(input);
      if (inputs.length === failAt)
        throw new SvcError({
          code: "fencing_token_mismatch",
          status: 412,
          message: "mismatch",
          origin: "server",
          retryable: false,
          sideEffects: false,
        });
      const start = tail;
      tail += input.records.length;
      return { start: pos(start), end: pos(tail), tail: pos(tail) };
    },
    appender: async (o: { maxInflightBytes?: number }) =>
      new Appender({ unary: () => new UnaryAppends((i) => stream.append(i)) }, { transport: "unary", ...o }),
  } as unknown as StreamClient;
  return { stream, inputs };
}

function plan(over: Partial<AppendPlan> = {}): AppendPlan {
  return {
    input: { files: [], format: "text", invalidUtf8: "bytes", headers: [] },
    onError: "fail",
    batch: { lingerMs: 5, maxRecords: 1000, maxBytes: 1 << 20 },
    conds: {},
    appender: { transport: "unary", maxInflightBytes: 100, onReconnect: () => undefined },
    acks: "none",
    commands: "skip",
    dryRun: false,
    atomic: false,
    ...over,
  };
}

/** `onBad` of --on-error fail: the record the client refused stops the run. */
const fail = (where: string, message: string): never => {
  throw new Error(`${where}: ${message}`);
};

function capture(tty = false) {
  const err = Object.assign(new PassThrough(), { isTTY: tty, columns: 40 });
  const out = Object.assign(new PassThrough(), { isTTY: tty });
  let e = "";
  let o = "";
  err.on("data", (c: Buffer) => (e += c.toString()));
  out.on("data", (c: Buffer) => (o += c.toString()));
  return { output: new Output({ stderr: err, stdout: out, env: {} }), err: () => e, out: () => o };
}

describe("cli/append > append pipe", () => {
  it("advances the match seq num batch by batch and sends the fencing token with each", async () => {
    const { stream, inputs } = fakeStream();
    const tally = new AppendTally();
    const acks: AppendAck[] = [];
    const pipe = new BatchPipe(
      stream,
      plan({ conds: { matchSeqNum: 0, fencingToken: "w" } }),
      tally,
      (a) => acks.push(a),
      fail,
    );
    for (const n of [2, 3, 1]) await pipe.send(batch(n));
    await pipe.drain(false);
    expect(inputs.map((i) => [i.matchSeqNum, i.fencingToken, i.records.length])).toEqual([
      [0, "w", 2],
      [2, "w", 3],
      [5, "w", 1],
    ]);
    expect(acks.map((a) => a.end.seqNum)).toEqual([2, 5, 6]);
    expect([tally.records, tally.first, tally.nextSeq]).toEqual([6, 0, 6]);
  });

  it("after a failed batch, the later ones are not sent and the failure is recorded", async () => {
    const { stream, inputs } = fakeStream(2);
    const tally = new AppendTally();
    const pipe = new BatchPipe(stream, plan(), tally, () => undefined, fail);
    for (const n of [1, 1, 1]) await pipe.send(batch(n, 60));
    await pipe.drain(false);
    expect(inputs).toHaveLength(2);
    expect(tally.failure?.code).toBe("fencing_token_mismatch");
    expect(tally.records).toBe(1);
  });

  it("dry run counts and sends nothing", async () => {
    const { stream, inputs } = fakeStream();
    const tally = new AppendTally();
    const pipe = new BatchPipe(stream, plan({ dryRun: true }), tally, () => undefined, fail);
    await pipe.send(batch(3, 30));
    expect(inputs).toHaveLength(0);
    expect(tally.dryRunSummary()).toBe("dry run: 3 valid records (30 B metered) in 1 batch; nothing was sent");
  });

  it("a record the client refuses is named by file:line, or left out of its batch when skipping", async () => {
    const big: Batch = {
      records: [
        ...batch(2).records,
        { record: { headers: [], body: new Uint8Array(1024 * 1024) }, size: 1024 * 1024 + 8, where: "in:7" },
      ],
      bytes: 10 + 1024 * 1024 + 8,
    };
    const failing = fakeStream();
    const pipe = new BatchPipe(failing.stream, plan(), new AppendTally(), () => undefined, fail);
    await expect(pipe.send(big)).rejects.toThrow(/^in:7: record is 1048584 metered bytes; the limit is 1048576/);
    expect(failing.inputs).toHaveLength(0);

    const skipping = fakeStream();
    const tally = new AppendTally();
    const skipped: string[] = [];
    const pipe2 = new BatchPipe(
      skipping.stream,
      plan(),
      tally,
      () => undefined,
      (where) => {
        skipped.push(where);
      },
    );
    await pipe2.send(big);
    await pipe2.drain(false);
    expect(skipped).toEqual(["in:7"]);
    expect(skipping.inputs.map((i) => i.records.length)).toEqual([2]);
    expect([tally.records, tally.bytes]).toEqual([2, 10]);
  });

  it("throttle: a batch is due when the rate allows its records and bytes", () => {
    const tally = new AppendTally();
    tally.sentRecords = 10;
    tally.sentBytes = 1000;
    expect(throttleDue({ rate: 10 }, tally, batch(10, 100)) - tally.startedAt).toBe(2000);
    expect(throttleDue({ rateBytes: 100 }, tally, batch(1, 100)) - tally.startedAt).toBe(11000);
    expect(throttleDue({}, tally, batch(1))).toBe(0);
  });

  it("input policy: malformed records fail or are skipped with a warning; trims are never kept", () => {
    const c = capture();
    const tally = new AppendTally();
    const skip = inputPolicy(c.output, { onError: "skip", commands: "replay" }, tally);
    skip.onBad("f:3", "bad");
    expect(tally.skipped).toBe(1);
    expect(c.err()).toBe("! skipping f:3: bad\n");
    expect(skip.onCommand!("f:1", { op: "fence", token: "x" })).toBe(true);
    expect(skip.onCommand!("f:2", { op: "trim", trimPoint: 3n })).toBe(false);
    expect(tally.commandsNote(true)).toMatch(
      /^note: skipped 1 command record in the input \(1 trim\): a trim names a sequence number of the stream it came from/,
    );
    expect(() => inputPolicy(c.output, { onError: "fail", commands: "skip" }, tally).onBad("f:4", "bad")).toThrow(
      /f:4: bad/,
    );
  });
});

describe("cli/append > tally", () => {
  it("says 1 record, ranges with both ends included, bytes metered, and gives a JSON summary", () => {
    const t = new AppendTally();
    expect(t.knownState("svc://b/s")).toBe("no batch was acknowledged");
    t.acked({ start: pos(4), end: pos(5), tail: pos(5) }, { count: 1, bytes: 12 });
    expect(t.knownState("svc://b/s")).toBe("acknowledged: 1 record, 4 (next position 5)");
    expect(t.summary()).toMatch(/^appended 1 record \(12 B metered\) 4 in /);
    expect(t.toJson(false)).toMatchObject({
      records: 1,
      bytes: 12,
      start: 4,
      end: 5,
      tail: { seq_num: 5, timestamp: 1005 },
    });
    expect(t.progressLine()).toMatch(/^⦿ appending: 1 record · 12 B metered · .*\/s · last acked 4$/);
  });
});

const sr = (n: number): SequencedRecord => ({ seqNum: n, timestamp: n, headers: [], body: Buffer.from(`b${n}`) });

describe("cli/read > read run", () => {
  it("cutAtSeq keeps records before the end and says when it is reached", () => {
    expect(cutAtSeq([sr(1), sr(2)], undefined)).toEqual({ records: [sr(1), sr(2)], done: false });
    expect(cutAtSeq([sr(1), sr(2)], 3).done).toBe(false);
    expect(cutAtSeq([sr(1), sr(2), sr(3)], 3)).toEqual({ records: [sr(1), sr(2)], done: true });
  });

  it("the idle timer fires once after quiet, and re-arming postpones it", async () => {
    let fired = 0;
    const t = new IdleTimer(40, () => fired++);
    t.arm();
    await new Promise((r) => setTimeout(r, 25));
    t.arm();
    await new Promise((r) => setTimeout(r, 25));
    expect(fired).toBe(0);
    await new Promise((r) => setTimeout(r, 40));
    expect(fired).toBe(1);
    new IdleTimer(undefined, () => fired++).arm();
  });

  it("the emitter writes data, command lines to stderr, and a checkpoint after each batch", async () => {
    const dir = scratchDir("svc-unit-read-");
    const c = capture();
    const sink: ReadSinkPlan = {
      output: join(dir, "out"),
      appendOutput: false,
      progress: false,
      stats: false,
      checkpoint: join(dir, "ckpt"),
      printer: {
        format: "text",
        commands: "stderr",
        json: {},
        delimiter: Buffer.from("\n"),
        invalidUtf8: "replace",
        timeFormat: "ms",
      },
    };
    const writer = await RecordWriter.open(sink.output);
    const e = new BatchEmitter(c.output, writer, sink, new ReadProgress(c.output, "off"), "svc://b/s", undefined);
    const fence = {
      seqNum: 2,
      timestamp: 7,
      headers: [{ name: new Uint8Array(0), value: Buffer.from("fence") }],
      body: Buffer.from("w"),
    };
    await e.emit([sr(1), fence, sr(3)]);
    await writer.close();
    expect(readFileSync(sink.output!, "utf8")).toBe("b1\nb3\n");
    expect(c.err()).toBe('new fencing token "w" // 2 @ 7\n');
    expect(readCheckpoint(sink.checkpoint!)).toBe(4);
    expect(e.progress.summary()).toMatch(/^read 3 records \(\d+ B metered\) 1\.\.3 in/);
  });
});

describe("cli/read > checkpoint", () => {
  it("round-trips, is absent when missing, and refuses junk", () => {
    const p = join(scratchDir("svc-unit-ckpt-"), "c");
    expect(readCheckpoint(p)).toBeUndefined();
    writeCheckpoint(p, 42);
    expect(readCheckpoint(p)).toBe(42);
    writeFileSync(p, "4x2");
    expect(() => readCheckpoint(p)).toThrow(/does not hold a sequence number/);
  });
});

describe("cli > progress through the output module", () => {
  it("live on a terminal, periodic in logs or off, never under --quiet", () => {
    expect(progressMode(capture(true).output, true, "periodic")).toBe("live");
    expect(progressMode(capture(false).output, true, "periodic")).toBe("periodic");
    expect(progressMode(capture(false).output, true, "off")).toBe("off");
    expect(
      progressMode(
        new Output({ quiet: true, stderr: Object.assign(new PassThrough(), { isTTY: true }), env: {} }),
        true,
        "periodic",
      ),
    ).toBe("off");
  });

  it("the live line is fitted to the terminal and cleared before other stderr lines and before data on a terminal stdout", async () => {
    const c = capture(true);
    c.output.live("x".repeat(100));
    expect(c.err()).toBe(`\r\x1b[2K${"x".repeat(38)}…`);
    c.output.info("hello");
    expect(c.err().endsWith("\r\x1b[2Khello\n")).toBe(true);
    c.output.live("again");
    await c.output.line("data");
    expect(c.err().endsWith("again\r\x1b[2K")).toBe(true);
    expect(c.out()).toBe("data\n");
  });

  it("the ticker draws on its period and clears when stopped", async () => {
    const c = capture(true);
    let n = 0;
    const t = new StatusTicker(c.output, "live", () => `tick ${++n}`);
    await new Promise((r) => setTimeout(r, 600));
    t.stop();
    expect(n).toBeGreaterThanOrEqual(2);
    expect(c.err()).toContain("tick 1");
    expect(c.err().endsWith("\r\x1b[2K")).toBe(true);
  });
});
