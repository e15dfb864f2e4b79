/** `svc config list`: `key = value` lines of the selected table; the token shows as `<redacted>`. */
import { Command } from "commander";
import { REDACTED } from "../../../client/redacted.js";
import { handler } from "../../action.js";
import { CONFIG_KEYS } from "../../config-keys.js";
import { examples } from "../../help.js";
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
      if (ctx.flags.json)
        return ctx.out.jsonDoc({ path: ctx.configPath, settings: Object.fromEntries(entries), profiles });
      for (const [k, v] of entries) await ctx.out.line(`${k} = ${typeof v === "string" ? v : JSON.stringify(v)}`);
      if (profiles.length > 0 && targetTable(ctx, file, false) === file)
        ctx.out.info(`profiles: ${profiles.join(", ")} (select with --profile NAME)`);
    }),
  );
  return examples(cmd, ["svc config list", "svc --profile staging config list"]);
}
