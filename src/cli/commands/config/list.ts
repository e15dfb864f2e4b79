/** `svc config list`: `key = value` lines of the selected table; the token shows as `<redacted>`. */
import { Command } from "commander";
import { REDACTED } from "../../../client/redacted.js";
import { handler } from "../../action.js";
import { CONFIG_KEYS } from "../../config-keys.js";
import type { Context } from "../../context.js";
import { examples } from "../../help.js";
import type { Settings } from "../../settings.js";
import { targetTable } from "./shared.js";

export function configListCommand(): Command {
  const cmd = new Command("list").description("List the settings in the config file (the token is redacted)");
  cmd.action(
    handler(async (ctx) => {
      const file = ctx.configFile();
      const table = targetTable(ctx, file, false) ?? {};
      const entries: [string, unknown][] = Object.entries(table)
        .filter(([, v]) => typeof v !== "object")
        .map(([k, v]) => [k, CONFIG_KEYS[k]?.secret ? REDACTED : v]);
      const profiles = typeof file.profiles === "object" ? Object.keys(file.profiles) : [];
      const effective = inEffect(ctx);
      if (ctx.flags.json)
        return ctx.out.jsonDoc({
          path: ctx.configPath,
          settings: Object.fromEntries(entries),
          profiles,
          effective: effective.settings,
          notes: effective.notes,
        });
      for (const [k, v] of entries) await ctx.out.line(`${k} = ${typeof v === "string" ? v : JSON.stringify(v)}`);
      if (profiles.length > 0 && targetTable(ctx, file, false) === file)
        ctx.out.info(`profiles: ${profiles.join(", ")} (select with --profile NAME)`);
      // What this file does not say but is in effect (the environment, S2's variables, defaults).
      for (const [k, v] of Object.entries(effective.settings))
        if (!v.source.startsWith("config ") && !v.source.startsWith("profile ") && v.source !== "default")
          ctx.out.info(`in effect: ${k} = ${v.value} (${v.source})`);
      for (const n of effective.notes) ctx.out.warn(n);
    }),
  );
  return examples(cmd, ["svc config list", "svc --profile staging config list"]);
}

/** The connection settings in effect and where each came from (the token redacted); a configuration error as a note. */
function inEffect(ctx: Context): { settings: Record<string, { value: string; source: string }>; notes: string[] } {
  let s: Settings;
  try {
    s = ctx.settings();
  } catch (e) {
    return { settings: {}, notes: [(e as Error).message] };
  }
  const out: Record<string, { value: string; source: string }> = {
    account_endpoint: s.accountEndpoint,
    basin_endpoint: s.basinEndpoint,
  };
  if (s.accessToken) out.access_token = { value: REDACTED, source: s.accessToken.source };
  out.dialect = s.dialect;
  if (s.insecure.value) out.insecure = { value: "true", source: s.insecure.source };
  return { settings: out, notes: s.notes };
}
