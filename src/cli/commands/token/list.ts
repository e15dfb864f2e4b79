/** `svc token list`: ids, scopes and expiry (never a secret); a table, `--json` or `--ndjson`. */
import { Command } from "commander";
import type { AccessTokenInfo, AccessTokenScope, ResourceSet } from "../../../types.js";
import { flagAction } from "../../action.js";
import { attempt } from "../../failure.js";
import { bool, flagList, text } from "../../flags/declare.js";
import { count } from "../../flags/kinds.js";
import { examples } from "../../help.js";
import { finishPage, listOptions, type PageEnd, pageEnd } from "../../list-options.js";

const FLAGS = flagList(
  text("--prefix <prefix>", "only ids starting with this"),
  text("--start-after <id>", "only ids after this one"),
  count("--limit <n>", "list at most N tokens"),
  bool("--no-auto-paginate", "fetch a single page"),
  bool("--ndjson", "one JSON object per line"),
);

function set(s: ResourceSet | null | undefined): string {
  if (!s) return "-";
  return "exact" in s ? s.exact : `${s.prefix}*`;
}

function groups(scope: AccessTokenScope): string {
  const parts: string[] = [];
  for (const level of ["account", "basin", "stream"] as const) {
    const g = scope.op_groups?.[level];
    const rw = `${g?.read ? "r" : ""}${g?.write ? "w" : ""}`;
    if (rw) parts.push(`${level}=${rw}`);
  }
  return parts.join(",") || "-";
}

function row(t: AccessTokenInfo, now: number): string[] {
  const ops = t.scope.ops?.length ? t.scope.ops.join(",") : "-";
  const expired = t.expires_at !== undefined && t.expires_at !== null && Date.parse(t.expires_at) <= now;
  const expires = t.expires_at ? `${t.expires_at}${expired ? " (expired)" : ""}` : "never";
  return [
    t.id,
    set(t.scope.basins),
    set(t.scope.streams),
    set(t.scope.access_tokens),
    groups(t.scope),
    ops,
    expires,
    t.auto_prefix_streams ? "yes" : "no",
  ];
}

export function tokenListCommand(): Command {
  const cmd = new Command("list").description("List access tokens (ids, scopes, expiry; never the secrets)");
  flagAction(cmd, FLAGS, async (ctx, _args, flags) => {
    const { all, single } = listOptions(flags);
    const client = await ctx.client();
    const items: AccessTokenInfo[] = [];
    let end: PageEnd | undefined;
    await attempt("list access tokens", undefined, async () => {
      let source: AsyncIterable<AccessTokenInfo> | AccessTokenInfo[];
      if (single) {
        const page = await client.accessTokens.list({
          prefix: all.prefix,
          startAfter: all.startAfter,
          limit: all.limit,
        });
        end = pageEnd(page, (t) => t.id);
        source = page.items;
      } else source = client.accessTokens.listAll(all);
      for await (const t of source) {
        if (flags.ndjson) await ctx.out.jsonLine(t);
        else items.push(t);
      }
    });
    if (ctx.flags.json && !flags.ndjson) await ctx.out.jsonDoc(end ? { access_tokens: items, ...end } : items);
    else if (!flags.ndjson) {
      const now = Date.now();
      const rows = [
        ["ID", "BASINS", "STREAMS", "TOKENS", "OP GROUPS", "OPS", "EXPIRES", "AUTO-PREFIX"],
        ...items.map((t) => row(t, now).map((c) => ctx.out.shown(c))),
      ];
      const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
      for (const r of rows)
        await ctx.out.line(r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  "));
    }
    if (end) await finishPage(ctx, flags.ndjson, end, "tokens");
  });
  return examples(cmd, ["svc token list", "svc token list --prefix ci/ --json"]);
}
