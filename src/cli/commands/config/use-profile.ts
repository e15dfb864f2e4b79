/**
 * `svc config use-profile [NAME | --none]`: the current profile, kept in the config file
 * (`profile = "NAME"` at its top level), as `rpk profile use` or `nats context select` keep
 * theirs. Every command then takes its settings from `[profiles.NAME]` unless `--profile` or
 * `SVC_PROFILE` chooses another. Without an argument it prints the current one. `svc config
 * set/get/unset/list` still edit the top level unless `--profile` names a table: a current
 * profile never redirects a write.
 */
import { Command } from "commander";
import { flagAction } from "../../action.js";
import { readConfigFile, updateConfigFile } from "../../config-file.js";
import { ENV_VARS } from "../../env-vars.js";
import { usageError } from "../../failure.js";
import { bool, flagList } from "../../flags/declare.js";
import { examples } from "../../help.js";
import { CURRENT_PROFILE_KEY, profileTable } from "../../settings.js";

export function configUseProfileCommand(): Command {
  const cmd = new Command("use-profile")
    .description("Make a profile of the config file the current one (or print the current one)")
    .argument("[name]", "a [profiles.NAME] table of the config file");
  const flags = flagList(bool("--none", "no current profile: the file's top level again"));
  flagAction(cmd, flags, async (ctx, [name], opts) => {
    if (name === undefined && !opts.none) {
      const current = readConfigFile(ctx.configPath)[CURRENT_PROFILE_KEY];
      const value = typeof current === "string" && current !== "" ? current : null;
      if (ctx.flags.json) return ctx.out.jsonLine({ profile: value, file: ctx.configPath });
      if (value === null) ctx.out.info(`no current profile in ${ctx.configPath}`);
      else await ctx.out.line(value);
      return;
    }
    if (name !== undefined && opts.none) throw usageError("give a profile name or --none, not both");
    await updateConfigFile(ctx.configPath, (file) => {
      if (name === undefined) delete file[CURRENT_PROFILE_KEY];
      else {
        profileTable(file, name, ctx.configPath);
        file[CURRENT_PROFILE_KEY] = name;
      }
    });
    ctx.out.success(
      name === undefined
        ? `no current profile: settings come from the top level of ${ctx.configPath}`
        : `current profile: ${name} (${ctx.configPath}); --profile or ${ENV_VARS.profile} still choose another`,
    );
    if (ctx.flags.json) await ctx.out.jsonLine({ profile: name ?? null, file: ctx.configPath });
  });
  return examples(cmd, ["svc config use-profile local", "svc config use-profile", "svc config use-profile --none"]);
}
