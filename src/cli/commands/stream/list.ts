/** `svc stream list <basin|svc://basin/prefix>`: stream URIs, one per line (`--json`, `--ndjson`, `--long`: a header, creation time, state, URI). */
import { Command } from "commander";
import { longHeader, longRow } from "../../../format/list-long.js";
import type { StreamInfo } from "../../../types.js";
import { handler } from "../../action.js";
import type { Context } from "../../context.js";
import { attempt } from "../../failure.js";
import { examples } from "../../help.js";
import { addListOptions, listOptions, type ListFlags } from "../../list-options.js";
import { formatUri, parseBasinOrPrefix } from "../../uri.js";

export async function listStreams(ctx: Context, target: string, flags: ListFlags): Promise<void> {
  const uri = parseBasinOrPrefix(target);
  const { all, single } = listOptions(flags, uri.stream);
  const basin = (await ctx.client()).basin(uri.basin);
  const items: StreamInfo[] = [];
  let header = flags.long === true && !flags.ndjson && !ctx.flags.json;
  await attempt("list streams in", formatUri(uri.basin), async () => {
    const source = single ? (await basin.streams.list({ prefix: all.prefix, startAfter: all.startAfter, limit: all.limit })).items : basin.streams.listAll({ ...all, keep: (s) => flags.includeDeleted === true || s.deleted_at === undefined || s.deleted_at === null });
    for await (const s of source) {
      const deleting = s.deleted_at !== undefined && s.deleted_at !== null;
      if (deleting && !flags.includeDeleted) continue;
      if (flags.ndjson) await ctx.out.jsonLine(s);
      else if (ctx.flags.json) items.push(s);
      else {
        if (header) await ctx.out.line(longHeader("URI"));
        header = false;
        await ctx.out.line(streamLine(ctx, uri.basin, s, deleting, flags.long));
      }
    }
  });
  if (ctx.flags.json && !flags.ndjson) await ctx.out.jsonDoc(items);
}

function streamLine(ctx: Context, basin: string, s: StreamInfo, deleting: boolean, long: boolean | undefined): string {
  const uri = formatUri(basin, s.name);
  if (long) return longRow(s.created_at, deleting ? "deleting" : "active", uri);
  return deleting ? `${uri} ${ctx.out.red("[deleting]")}` : uri;
}

export function streamListCommand(name = "list"): Command {
  const cmd = new Command(name).description("List the streams of a basin").argument("<basin>", "basin name, svc://basin, or svc://basin/prefix");
  addListOptions(cmd).action(handler<ListFlags>((ctx, [target], opts) => listStreams(ctx, target!, opts)));
  return examples(cmd, ["svc stream list my-basin-01", "svc stream list svc://my-basin-01/orders/ --long", "svc stream list my-basin-01 --json"]);
}
