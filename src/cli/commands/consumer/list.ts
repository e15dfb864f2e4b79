/**
 * `svc consumer list <basin|svc://basin/stream>`: the consumers of a stream, or of every stream
 * of a basin, found by their position streams (`_svc-consumer/<stream>/<consumer>`), with each
 * one's position, lag and commit time (`--json`: an array; `--ndjson`: one object per line).
 */
import { Command } from "commander";
import { flagAction } from "../../action.js";
import { POSITIONS_PREFIX, parsePositionStream } from "../../consumer/names.js";
import { PositionStore } from "../../consumer/positions.js";
import { type ConsumerReport, consumerReport, consumerTable, tailOf } from "../../consumer/report.js";
import { attempt } from "../../failure.js";
import { bool, flagList } from "../../flags/declare.js";
import { examples } from "../../help.js";
import { formatUri, parseBasinOrPrefix } from "../../uri.js";

const FLAGS = flagList(bool("--ndjson", "one JSON object per line, streamed"));

export function consumerListCommand(): Command {
  const cmd = new Command("list")
    .description("List the consumers of a stream (svc://basin/stream) or of every stream of a basin")
    .argument("<uri>", "svc://basin/stream, or a basin");
  flagAction(cmd, FLAGS, async (ctx, [target], f) => {
    const { basin, stream } = parseBasinOrPrefix(target!);
    const where = formatUri(basin, stream);
    const b = (await ctx.client()).basin(basin);
    const reports: ConsumerReport[] = [];
    const tails = new Map<string, number | null>();
    await attempt("list the consumers of", where, async () => {
      const prefix = stream === undefined ? POSITIONS_PREFIX : `${POSITIONS_PREFIX}${stream}/`;
      for await (const s of b.streams.listAll({ prefix })) {
        if (s.deleted_at !== undefined && s.deleted_at !== null) continue;
        const p = parsePositionStream(s.name);
        if (p === undefined || (stream !== undefined && p.stream !== stream)) continue;
        const { commit } = await new PositionStore(b, p.stream, p.consumer).latest();
        if (commit === undefined) continue;
        if (!tails.has(p.stream)) tails.set(p.stream, await tailOf(b, p.stream));
        const r = consumerReport(basin, p.stream, p.consumer, commit, tails.get(p.stream)!);
        if (f.ndjson) await ctx.out.jsonLine(r);
        else reports.push(r);
      }
    });
    if (f.ndjson) return;
    if (ctx.flags.json) return ctx.out.jsonDoc(reports);
    if (reports.length === 0) return ctx.out.info(`no consumers of ${where}`);
    for (const l of consumerTable(reports)) await ctx.out.line(l);
  });
  return examples(cmd, ["svc consumer list svc://my-basin-01/events", "svc consumer list my-basin-01 --json"]);
}
