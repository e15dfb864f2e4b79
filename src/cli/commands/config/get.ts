/** `svc config get <key>`: the stored value, nothing (`--json`: null) when unset; a stored token needs `--show-secret`. */
import { Command } from "commander";
import { flagAction } from "../../action.js";
import { canonicalKey, keySpec } from "../../config-keys.js";
import { usageError } from "../../failure.js";
import { bool, flagList } from "../../flags/declare.js";
import { examples } from "../../help.js";
import { targetTable, where } from "./shared.js";

export function configGetCommand(): Command {
  const cmd = new Command("get")
    .description("Print one setting from the config file")
    .argument(
      "<key>",
      "account_endpoint, basin_endpoint, access_token, compression, insecure, timeout, retries, dialect",
    );
  const flags = flagList(bool("--show-secret", "print the access token (it is a secret)"));
  flagAction(cmd, flags, async (ctx, [typed], opts) => {
    const key = canonicalKey(typed!);
    const spec = keySpec(key);
    const stored = targetTable(ctx, ctx.configFile(), false)?.[key];
    const value = typeof stored === "object" ? undefined : stored;
    if (value === undefined) {
      if (ctx.flags.json) await ctx.out.jsonLine(null);
      ctx.out.info(`${key} is not set in ${where(ctx)}`);
      return;
    }
    if (spec.secret && !opts.showSecret)
      throw usageError(`${key} is a secret and is not printed; add --show-secret to print it`);
    if (ctx.flags.json) return ctx.out.jsonLine(value);
    await ctx.out.line(String(value));
  });
  return examples(cmd, ["svc config get account_endpoint", "svc config get access_token --show-secret"]);
}
