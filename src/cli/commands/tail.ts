/**
 * `svc tail <uri>… [-n N] [-f]` (docs/design/cli.md, "Reading"): the last N data records (10 by default;
 * fewer when fewer exist), then live with `-f`. N counts data records whatever the format:
 * command records among them are shown as the format shows them (stderr in text, inline in
 * JSON) but never take a data record's place. `--since DUR` takes the records newer than DUR
 * instead. Several URIs, or a `svc://basin/prefix*` pattern, follow several streams at once
 * (data/multi-tail.ts).
 */
import { Command } from "commander";
import { parseTimePoint } from "../../format/record-time.js";
import { flagAction } from "../action.js";
import type { Context } from "../context.js";
import { usageError } from "../failure.js";
import { bool, type FlagValues, flagList, valueFlag } from "../flags/declare.js";
import { count, millis } from "../flags/kinds.js";
import { examples } from "../help.js";
import { readCheckpoint } from "../read/checkpoint.js";
import { type MultiTailPlan, runMultiTail } from "../read/multi-tail.js";
import { applyJsonFlag, checkBinaryTarget, OUTPUT_FLAGS, sinkPlan } from "../read/output-options.js";
import { type ReadRunPlan, type ReadSinkPlan, runRead } from "../read/read-run.js";
import { isMultiTail, parseTailTarget } from "../read/stream-set.js";
import { tailEvents } from "../read/tail-window.js";
import { stdout } from "../stdout.js";
import { formatUri, parseStreamUri } from "../uri.js";

const FLAGS = flagList(
  count("-n, --lines <n>", "how many data records, of each stream (fence and trim records among them do not count)", {
    default: "10",
  }),
  bool("-f, --follow", "then keep printing new records"),
  valueFlag("--since <dur>", "the records newer than DUR (e.g. 10m) instead of the last N", (raw, name) =>
    parseTimePoint(raw, name, { duration: "ago" }),
  ),
  millis(
    "--discover-interval <dur>",
    "several streams, -f: how often a svc://basin/prefix* pattern is listed again for new streams",
    { default: "5s" },
  ),
  bool("--no-prefix", "several streams: no [stream] label on text lines, no basin/stream fields in JSON"),
  ...OUTPUT_FLAGS,
);

type Flags = FlagValues<typeof FLAGS>;

export function tailCommand(): Command {
  const cmd = new Command("tail")
    .description("Print the last records of a stream (or of several), then follow with -f")
    .argument(
      "<uri...>",
      "svc://basin/stream; several, or svc://basin/prefix* (a trailing *), to follow several streams",
    );
  flagAction(cmd, FLAGS, async (ctx, args, f, c) => {
    applyJsonFlag(f, ctx.flags.json, c.getOptionValueSource("format") === "cli");
    const sink = sinkPlan(f);
    checkBinaryTarget(sink, f.force, stdout().isTTY === true);
    const n = f.lines;
    const linesGiven = c.getOptionValueSource("lines") === "cli";
    if (f.since !== undefined && linesGiven) throw usageError("use either -n or --since");
    if (isMultiTail(args)) return tailSeveral(ctx, args, f, sink, n);
    const { basin, stream } = parseStreamUri(args[0]!);
    const client = await ctx.client();
    const sc = client.basin(basin).stream(stream);
    const uri = formatUri(basin, stream);
    const resume = sink.checkpoint !== undefined ? readCheckpoint(sink.checkpoint) : undefined;
    if (resume !== undefined) {
      // A rerun prints what came since the last one, as a tail of several streams does.
      ctx.out.info(`resuming from checkpoint ${sink.checkpoint} at ${resume}`);
      const plan: ReadRunPlan = {
        start: { seqNum: resume },
        limits: f.follow ? {} : { wait: 0 },
        follow: f.follow === true,
        transport: "session",
        expectFrom: resume,
      };
      return runRead(ctx, sc, uri, plan, sink);
    }
    if (f.since !== undefined) {
      const plan: ReadRunPlan = {
        start: { timestamp: f.since },
        limits: { clamp: true, ...(f.follow ? {} : { wait: 0 }) },
        follow: f.follow === true,
        transport: "session",
      };
      return runRead(ctx, sc, uri, plan, sink);
    }
    if (n > 0) {
      const plan: ReadRunPlan = { start: {}, limits: {}, follow: f.follow === true, transport: "session" };
      return runRead(ctx, sc, uri, plan, sink, (signal) => tailEvents(sc, n, f.follow === true, signal));
    }
    const plan: ReadRunPlan = f.follow
      ? { start: { tailOffset: n }, limits: { clamp: true }, follow: true, transport: "session" }
      : { start: { tailOffset: n }, limits: { clamp: true, count: n }, follow: false, transport: "session" };
    await runRead(ctx, sc, uri, plan, sink);
  });
  return examples(cmd, [
    "svc tail svc://my-basin-01/events",
    "svc tail svc://my-basin-01/events -n 100 --format json",
    "svc tail svc://my-basin-01/events -f",
    "svc tail svc://my-basin-01/events --since 10m",
    "svc tail -f svc://my-basin-01/app-1 svc://my-basin-01/app-2",
    "svc tail -f 'svc://my-basin-01/app-*' --checkpoint tail.json --format json",
  ]);
}

/** Several streams: one plan for all, each stream read on its own (data/multi-tail.ts). */
async function tailSeveral(ctx: Context, args: string[], f: Flags, sink: ReadSinkPlan, lines: number): Promise<void> {
  if (sink.printer.format === "binary")
    throw usageError(
      "--format binary has no record boundaries to tell several streams apart; use --format json-base64",
    );
  if (sink.splitDir !== undefined) throw usageError("--split-dir takes one stream; tail the streams one by one");
  if (sink.stats) throw usageError("--stats takes one stream");
  const plan: MultiTailPlan = {
    targets: args.map(parseTailTarget),
    lines,
    follow: f.follow === true,
    discoverMs: Math.max(100, f.discoverInterval),
    labels: f.prefix,
  };
  if (f.since !== undefined) plan.since = f.since;
  await runMultiTail(ctx, await ctx.client(), plan, sink);
}
