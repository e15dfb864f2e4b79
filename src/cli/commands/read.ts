/**
 * `svc read <uri>` (docs/design/cli.md, "Reading"): start by seq num, time, age, tail offset or the
 * beginning (default: the tail, as the S2 CLI, with a hint on a terminal); stop by count,
 * bytes, time, seq num, at the tail (`-e`) or after an idle time; follow otherwise.
 */
import { Command } from "commander";
import { parseRange } from "../../format/record-range.js";
import { parseTimePoint } from "../../format/record-time.js";
import { LIMITS, type ReadLimits, type ReadStart } from "../../types.js";
import { flagAction } from "../action.js";
import { usageError } from "../failure.js";
import { bool, choice, type FlagValues, flagList, pair, text, valueFlag } from "../flags/declare.js";
import { count, millis, seconds, size } from "../flags/kinds.js";
import { examples } from "../help.js";
import { readCheckpoint } from "../read/checkpoint.js";
import { joinSink } from "../read/join.js";
import { applyJsonFlag, checkBinaryTarget, OUTPUT_FLAGS, sinkPlan } from "../read/output-options.js";
import { type ReadRunPlan, runRead } from "../read/read-run.js";
import { stdout } from "../stdout.js";
import { formatUri, parseStreamUri } from "../uri.js";

/** `wait` for "follow even with limits": under 2^31 ms so no timer anywhere overflows. */
const FOLLOW_WAIT_SECS = 2_000_000;

const FLAGS = flagList(
  count("-s, --seq-num <n>", "start at this sequence number"),
  valueFlag(
    "--timestamp <time>",
    "start at the first record at or after TIME (epoch ms, RFC 3339, YYYY-MM-DD)",
    (raw, name) => parseTimePoint(raw, name),
  ),
  valueFlag("--ago <dur>", "start at now − DUR (e.g. 1h)", (raw, name) =>
    parseTimePoint(raw, name, { duration: "ago" }),
  ),
  count("--tail-offset <n>", "start N records before the tail"),
  bool("--from-beginning", "start at the first record (= -s 0 --clamp)"),
  bool("--clamp", "start at the tail when the start is beyond it"),
  count("-n, --count <n>", "stop after N records"),
  size("-b, --bytes <size>", "stop before exceeding SIZE metered bytes (e.g. 1MiB)"),
  valueFlag(
    "--until <time>",
    "stop at the first record at or after TIME (epoch ms, RFC 3339, YYYY-MM-DD, or a duration from now)",
    (raw, name) => parseTimePoint(raw, name, { duration: "ahead" }),
  ),
  count("--until-seq <n>", "stop before sequence number N"),
  valueFlag("--range <a:b>", "start and end in one flag: 100:200, @-1h:now, @2026-01-01:1h", (raw) => parseRange(raw)),
  ...pair("-f, --follow", "keep waiting for new records, even with -n/-b/--until", "stop at the tail (same as -e)"),
  bool("-e, --exit-at-tail", "stop when caught up with the tail"),
  seconds("--wait <secs>", "stop after SECS at the tail with no new records (server-side)"),
  millis("--idle-timeout <dur>", "exit 0 after no records for DUR (client-side)"),
  text(
    "--consumer <name>",
    "keep this read's position in the service under NAME: resume where the last reader of NAME stopped (any machine), commit what is printed (docs/consumers.md)",
  ),
  millis("--commit-every <dur>", "with --consumer: commit the position this often (0: after every batch)", {
    default: "1s",
  }),
  choice(
    "--transport <kind>",
    "session (framed protobuf; the default, except that a read of at most 1000 records that stops at the tail is one unary request), unary, or sse",
    ["session", "unary", "sse"],
  ),
  bool(
    "--join",
    "put back together the files that `svc append --chunk` wrote as several records: their bytes, exactly, each checked whole (size and SHA-256)",
  ),
  ...OUTPUT_FLAGS,
);

type Flags = FlagValues<typeof FLAGS>;

export function readCommand(): Command {
  const cmd = new Command("read")
    .description(
      "Read records from a stream to stdout (or -o FILE). By default it starts at the tail and follows new records, like tail -f: use --from-beginning, -s N, --ago DUR or --tail-offset N for older records, and -e (or -n, -b, --until) to stop.",
    )
    .argument("<uri>", "svc://basin/stream");
  flagAction(cmd, FLAGS, async (ctx, [arg], f, c) => {
    const { basin, stream } = parseStreamUri(arg!);
    applyJsonFlag(f, ctx.flags.json, c.getOptionValueSource("format") === "cli");
    const sink = sinkPlan(f);
    if (f.join) joinSink(f, sink);
    checkBinaryTarget(sink, f.force, stdout().isTTY === true);
    const plan = readPlan(f);
    if (f.consumer !== undefined) {
      const consumer = await import("../consumer/read.js");
      const o = {
        consumer: f.consumer,
        commitEveryMs: f.commitEvery,
        startGiven: startsGiven(f) > 0,
        checkpoint: f.checkpoint,
      };
      consumer.checkConsumerRead(stream, o);
      return consumer.readAsConsumer(ctx, basin, stream, o, sink, (at) => readPlan(f, at));
    }
    if (f.checkpoint !== undefined) {
      const next = readCheckpoint(f.checkpoint);
      if (next !== undefined) {
        plan.start = { seqNum: next };
        plan.expectFrom = next;
        ctx.out.info(`resuming from checkpoint ${f.checkpoint} at ${next}`);
      }
    }
    if (Object.keys(plan.start).length === 0 && process.stderr.isTTY && !ctx.out.quiet) {
      ctx.out.info(
        "reading new records only (from the tail); use --from-beginning, -s N or --ago DUR for older ones",
        "dim",
      );
    }
    const client = await ctx.client();
    await runRead(ctx, client.basin(basin).stream(stream), formatUri(basin, stream), plan, sink);
  });
  return examples(cmd, [
    "svc read svc://my-basin-01/events --from-beginning -e",
    "svc read svc://my-basin-01/events -s 100 -n 10 --format json",
    "svc read svc://my-basin-01/events --ago 1h --until now --format json-base64",
    "svc read svc://my-basin-01/events --template '{seq_num}\\t{timestamp:iso}\\t{body}'",
    "svc read svc://my-basin-01/events --from-beginning -e | head -1",
    "svc read svc://my-basin-01/events --consumer billing -e     # what is new since billing's last read, on any machine",
    "svc read svc://my-basin-01/files -s 0 -e --join > backup.tar   # a file appended with --chunk",
  ]);
}

/** How many start flags were given. */
function startsGiven(f: Flags): number {
  const starts = [f.seqNum, f.timestamp, f.ago, f.tailOffset, f.fromBeginning || undefined, f.range];
  return starts.filter((v) => v !== undefined).length;
}

/** The read the flags ask for; `resumeAt`: start there instead (a consumer's position), keeping the flags' end. */
function readPlan(f: Flags, resumeAt?: number): ReadRunPlan {
  if (startsGiven(f) > 1)
    throw usageError("give at most one start: -s, --timestamp, --ago, --tail-offset, --from-beginning or --range");
  let start: ReadStart = {};
  const limits: ReadLimits = {};
  let untilSeq = f.untilSeq;
  if (f.seqNum !== undefined) start = { seqNum: f.seqNum };
  if (f.tailOffset !== undefined) start = { tailOffset: f.tailOffset };
  if (f.fromBeginning) {
    start = { seqNum: 0 };
    limits.clamp = true;
  }
  // A time start means "from then on": clamp, so a time after the last record waits for new ones.
  if (f.timestamp !== undefined) start = { timestamp: f.timestamp };
  if (f.ago !== undefined) start = { timestamp: f.ago };
  if ("timestamp" in start) limits.clamp = true;
  if (f.clamp) limits.clamp = true;
  if (f.count !== undefined) limits.count = f.count;
  if (f.bytes !== undefined) limits.bytes = f.bytes;
  if (f.until !== undefined) limits.until = f.until;
  const r = f.range;
  if (r !== undefined) {
    if (f.until !== undefined || f.untilSeq !== undefined)
      throw usageError("--range already gives the end; drop --until/--until-seq");
    if (r.kind === "seq") {
      start = { seqNum: r.start };
      if (r.end !== undefined) untilSeq = r.end;
    } else {
      start = { timestamp: r.start };
      limits.clamp = true;
      if (r.end !== undefined) limits.until = r.end;
    }
  }
  if (resumeAt !== undefined) {
    start = { seqNum: resumeAt };
    if (f.clamp) limits.clamp = true;
    else delete limits.clamp;
  }
  // A seq-num end known up front also bounds the count, so the server stops there too.
  if (untilSeq !== undefined && "seqNum" in start) {
    const n = Math.max(0, untilSeq - start.seqNum);
    limits.count = limits.count === undefined ? n : Math.min(limits.count, n);
  }
  const stop = f.exitAtTail === true || f.follow === false;
  if (stop && f.follow === true) throw usageError("use either -f/--follow or -e/--exit-at-tail");
  if (f.wait !== undefined) {
    if (stop) throw usageError("--wait and -e/--no-follow contradict each other");
    limits.wait = f.wait;
  } else if (stop) limits.wait = 0;
  else if (f.follow && (limits.count !== undefined || limits.bytes !== undefined || limits.until !== undefined))
    limits.wait = FOLLOW_WAIT_SECS;
  const bounded = limits.count !== undefined || limits.bytes !== undefined || limits.until !== undefined;
  const follow = limits.wait === undefined ? !bounded : limits.wait > 0;
  // A read that stops within one response's worth of records is one unary request: a one-shot
  // process sets that up in a fraction of a session's time (HTTP/1.1, no framing), and the loop
  // of unary reads still continues past a response's 1 MiB if it must.
  const small = !follow && limits.count !== undefined && limits.count <= LIMITS.maxUnaryReadRecords;
  const plan: ReadRunPlan = { start, limits, follow, transport: f.transport ?? (small ? "unary" : "session") };
  if (untilSeq !== undefined) plan.untilSeq = untilSeq;
  // An explicit sequence number is where the read expects its first record (gaps.ts); the
  // beginning (--from-beginning) is wherever the stream now starts.
  if ("seqNum" in start && (!f.fromBeginning || resumeAt !== undefined)) plan.expectFrom = start.seqNum;
  if (f.idleTimeout !== undefined) plan.idleTimeoutMs = f.idleTimeout;
  return plan;
}
