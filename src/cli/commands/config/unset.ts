/** `svc config unset <key>`: removes a setting (atomic write). */
import { Command } from "commander";
import { handler } from "../../action.js";
import { updateConfigFile } from "../../config-file.js";
import { canonicalKey, keySpec, S2_CONFIG_KEYS } from "../../config-keys.js";
import { examples } from "../../help.js";
import { changed, targetTable, where } from "./shared.js";

export function configUnsetCommand(): Command {
  const cmd = new Command("unset")
    .description("Remove a setting from the config file")
    .argument("<key>", "setting name");
  cmd.action(
    handler(async (ctx, [typed]) => {
      const key = canonicalKey(typed!);
      keySpec(key);
      let removed = false;
      await updateConfigFile(ctx.configPath, (file) => {
        const table = targetTable(ctx, file, false);
        // The key under svc's name and under S2's (`ssl_no_verify`, written by hand): both are read.
        for (const name of [key, ...Object.keys(S2_CONFIG_KEYS).filter((k) => S2_CONFIG_KEYS[k] === key)]) {
          if (table && name in table) {
            delete table[name];
            removed = true;
          }
        }
      });
      ctx.out.success(removed ? `${key} unset in ${where(ctx)}` : `${key} was not set in ${where(ctx)}`);
      if (ctx.flags.json) await ctx.out.jsonLine({ ...changed(ctx, key), removed });
    }),
  );
  return examples(cmd, ["svc config unset compression"]);
}
