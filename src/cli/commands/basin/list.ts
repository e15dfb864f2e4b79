/** `svc basin list`: basins, one per line (`--long`: a header, creation time, state, name; `--json`, `--ndjson`). */
import { Command } from "commander";
import { longHeader, longRow } from "../../../format/list-long.js";
import type { BasinInfo } from "../../../types.js";
import { flagAction } from "../../action.js";
import type { Context } from "../../context.js";
import { attempt } from "../../failure.js";
import { examples } from "../../help.js";
import { finishPage, LIST_FLAGS, type ListFlags, listOptions, type PageEnd, pageEnd } from "../../list-options.js";

export async function listBasins(ctx: Context, flags: ListFlags): Promise<void> {
  const { all, single } = listOptions(flags);
  const client = await ctx.client();
  const items: BasinInfo[] = [];
  let header = flags.long && !flags.ndjson && !ctx.flags.json;
  let end: PageEnd | undefined;
  await attempt("list basins", undefined, async () => {
    let source: AsyncIterable<BasinInfo> | BasinInfo[];
    if (single) {
      const page = await client.basins.list({ prefix: all.prefix, startAfter: all.startAfter, limit: all.limit });
      end = pageEnd(page, (b) => b.name);
      source = page.items;
    } else source = client.basins.listAll({ ...all, keep: (b) => flags.includeDeleted || !isDeleting(b) });
    for await (const b of source) {
      if (isDeleting(b) && !flags.includeDeleted) continue;
      if (flags.ndjson) await ctx.out.jsonLine(b);
      else if (ctx.flags.json) items.push(b);
      else {
        if (header) await ctx.out.line(longHeader("NAME"));
        header = false;
        await ctx.out.paintedLine(basinLine(ctx, b, flags.long));
      }
    }
  });
  if (ctx.flags.json && !flags.ndjson) await ctx.out.jsonDoc(end ? { basins: items, ...end } : items);
  if (end) await finishPage(ctx, flags.ndjson, end, "basins");
}

function isDeleting(b: BasinInfo): boolean {
  return b.state === "deleting" || (b.deleted_at !== undefined && b.deleted_at !== null);
}

function basinLine(ctx: Context, b: BasinInfo, long: boolean | undefined): string {
  if (long) return ctx.out.shown(longRow(b.created_at, isDeleting(b) ? "deleting" : (b.state ?? "-"), b.name));
  const name = ctx.out.shown(b.name);
  return isDeleting(b) ? `${name} ${ctx.out.red("[deleting]")}` : name;
}

export function basinListCommand(name = "list"): Command {
  const cmd = new Command(name).description("List basins");
  flagAction(cmd, LIST_FLAGS, (ctx, _args, opts) => listBasins(ctx, opts));
  return examples(cmd, [
    "svc basin list",
    "svc basin list --prefix prod- --long",
    "svc basin list --ndjson | jq -r .name",
  ]);
}
