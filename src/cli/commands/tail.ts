/**
 * `svc tail <uri> [-n N] [-f]` (cli.md §1.8, §4.8): the last N data records (10 by default;
 * fewer when fewer exist), then live with `-f`. N counts data records whatever the format:
 * command records among them are shown as the format shows them (stderr in text, inline in
 * JSON) but never take a data record's place. `--since DUR` takes the records newer than DUR
 * instead.
 */
import { Command, Option } from "commander";
import { parseTimePoint } from "../../format/record-time.js";
import { handler } from "../action.js";
import { stdout } from "../stdout.js";
import { parseCount } from "../data/numbers.js";
import { addOutputOptions, applyJsonFlag, checkBinaryTarget, sinkPlan, type OutputFlags } from "../data/output-options.js";
import { runRead, type ReadRunPlan } from "../data/read-run.js";
import { tailEvents } from "../data/tail-window.js";
import { usageError } from "../failure.js";
import { examples } from "../help.js";
import { formatUri, parseStreamUri } from "../uri.js";

interface Flags extends OutputFlags {
  lines: string;
  follow?: boolean;
  since?: string;
}

export function tailCommand(): Command {
  const cmd = new Command("tail").description("Print the last records of a stream, then follow with -f")
    .argument("<uri>", "svc://basin/stream")
    .addOption(new Option("-n, --lines <n>", "how many data records (fence and trim records among them do not count)").default("10"))
    .addOption(new Option("-f, --follow", "then keep printing new records"))
    .addOption(new Option("--since <dur>", "the records newer than DUR (e.g. 10m) instead of the last N"));
  addOutputOptions(cmd);
  cmd.action(handler<Flags>(async (ctx, [arg], f, c) => {
    const { basin, stream } = parseStreamUri(arg!);
    applyJsonFlag(f, ctx.flags.json, c.getOptionValueSource("format") === "cli");
    const sink = sinkPlan(f);
    checkBinaryTarget(sink, f.force, stdout().isTTY === true);
    const n = parseCount(f.lines, "--lines");
    const linesGiven = c.getOptionValueSource("lines") === "cli";
    if (f.since !== undefined && linesGiven) throw usageError("use either -n or --since");
    const client = await ctx.client();
    const sc = client.basin(basin).stream(stream);
    const uri = formatUri(basin, stream);
    if (f.since !== undefined) {
      const from = parseTimePoint(f.since, "--since", { duration: "ago" });
      const plan: ReadRunPlan = { start: { timestamp: from }, limits: { clamp: true, ...(f.follow ? {} : { wait: 0 }) }, follow: f.follow === true, transport: "session" };
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
  }));
  return examples(cmd, [
    "svc tail svc://my-basin-01/events",
    "svc tail svc://my-basin-01/events -n 100 --format json",
    "svc tail svc://my-basin-01/events -f",
    "svc tail svc://my-basin-01/events --since 10m",
  ]);
}
