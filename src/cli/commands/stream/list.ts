/** `svc stream list <basin|svc://basin/prefix>`: stream URIs, one per line (`--json`, `--ndjson`, `--long`: a header, creation time, state, URI). */
import { Command } from "commander";
import { longHeader, longRow } from "../../../format/list-long.js";
import type { StreamInfo } from "../../../types.js";
import { flagAction } from "../../action.js";
import type { Context } from "../../context.js";
import { attempt } from "../../failure.js";
import { examples } from "../../help.js";
import { finishPage, LIST_FLAGS, type ListFlags, listOptions, type PageEnd, pageEnd } from "../../list-options.js";
import { formatUri, parseBasinOrPrefix } from "../../uri.js";

export async function listStreams(ctx: Context, target: string, flags: ListFlags): Promise<void> {
  const uri = parseBasinOrPrefix(target);
  const { all, single } = listOptions(flags, uri.stream);
  const basin = (await ctx.client()).basin(uri.basin);
  const items: StreamInfo[] = [];
  let header = flags.long && !flags.ndjson && !ctx.flags.json;
  let end: PageEnd | undefined;
  await attempt("list streams in", formatUri(uri.basin), async () => {
    let source: AsyncIterable<StreamInfo> | StreamInfo[];
    if (single) {
      const page = await basin.streams.list({ prefix: all.prefix, startAfter: all.startAfter, limit: all.limit });
      end = pageEnd(page, (s) => s.name);
      source = page.items;
    } else
      source = basin.streams.listAll({
        ...all,
        keep: (s) => flags.includeDeleted || s.deleted_at === undefined || s.deleted_at === null,
      });
    for await (const s of source) {
      const deleting = s.deleted_at !== undefined && s.deleted_at !== null;
      if (deleting && !flags.includeDeleted) continue;
      if (flags.ndjson) await ctx.out.jsonLine(s);
      else if (ctx.flags.json) items.push(s);
      else {
        if (header) await ctx.out.line(longHeader("URI"));
        header = false;
        await ctx.out.paintedLine(streamLine(ctx, uri.basin, s, deleting, flags.long));
      }
    }
  });
  if (ctx.flags.json && !flags.ndjson) await ctx.out.jsonDoc(end ? { streams: items, ...end } : items);
  if (end) await finishPage(ctx, flags.ndjson, end, "streams");
}

function streamLine(ctx: Context, basin: string, s: StreamInfo, deleting: boolean, long: boolean | undefined): string {
  const uri = formatUri(basin, s.name);
  if (long) return ctx.out.shown(longRow(s.created_at, deleting ? "deleting" : "active", uri));
  const shown = ctx.out.shown(uri);
  return deleting ? `${shown} ${ctx.out.red("[deleting]")}` : shown;
}

export function streamListCommand(name = "list"): Command {
  const cmd = new Command(name)
    .description("List the streams of a basin")
    .argument("<basin>", "basin name, svc://basin, or svc://basin/prefix");
  flagAction(cmd, LIST_FLAGS, (ctx, [target], opts) => listStreams(ctx, target!, opts));
  return examples(cmd, [
    "svc stream list my-basin-01",
    "svc stream list svc://my-basin-01/orders/ --long",
    "svc stream list my-basin-01 --json",
  ]);
}
