/**
 * `svc check-tail <uri>`: `<next seq_num> @ <timestamp of the last record, ms>` on stdout. An
 * empty stream (never written) has no last record: `0 @ -`, and `"timestamp": null` in JSON.
 */
import { Command } from "commander";
import { formatIso } from "../../format/record-time.js";
import { flagAction } from "../action.js";
import { attempt } from "../failure.js";
import { bool, choice, flagList } from "../flags/declare.js";
import { examples } from "../help.js";
import { formatUri, parseStreamUri } from "../uri.js";

const FLAGS = flagList(
  bool("--seq-only", "print only the next sequence number"),
  choice("--time-format <fmt>", "timestamp as epoch ms or RFC 3339", ["ms", "iso"], { default: "ms" }),
);

export function checkTailCommand(name = "check-tail"): Command {
  const cmd = new Command(name)
    .description("Print the tail of a stream: the next sequence number @ the last record's timestamp")
    .argument("<uri>", "svc://basin/stream");
  flagAction(cmd, FLAGS, async (ctx, [arg], opts) => {
    const { basin, stream } = parseStreamUri(arg!);
    const client = await ctx.client();
    const tail = await attempt("check tail of", formatUri(basin, stream), () =>
      client.basin(basin).stream(stream).checkTail(),
    );
    const empty = tail.seqNum === 0;
    const ts = empty ? null : opts.timeFormat === "iso" ? formatIso(tail.timestamp) : tail.timestamp;
    if (ctx.flags.json) return ctx.out.jsonLine({ seq_num: tail.seqNum, timestamp: ts });
    if (opts.seqOnly) return ctx.out.line(String(tail.seqNum));
    await ctx.out.line(`${tail.seqNum} @ ${ts ?? "-"}`);
  });
  return examples(cmd, [
    "svc check-tail svc://my-basin-01/events",
    "svc check-tail svc://my-basin-01/events --json",
    "next=$(svc check-tail svc://my-basin-01/events --seq-only)",
  ]);
}
