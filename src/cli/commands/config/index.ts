/** `svc config …`: the config file (`$XDG_CONFIG_HOME/svc/config.toml`) and its profiles. */
import { Command } from "commander";
import { LOCAL_LITE_ENDPOINT } from "../../../local-lite.js";
import { examples } from "../../help.js";
import { configGetCommand } from "./get.js";
import { configListCommand } from "./list.js";
import { configPathCommand } from "./path.js";
import { configSetCommand } from "./set.js";
import { configUnsetCommand } from "./unset.js";
import { configUseProfileCommand } from "./use-profile.js";

export function configCommand(): Command {
  const cmd = new Command("config").description(
    "Read and change the config file (keys: account_endpoint, basin_endpoint, access_token, compression, insecure, timeout, retries, dialect)",
  );
  cmd.addCommand(configListCommand().alias("ls"));
  cmd.addCommand(configGetCommand());
  cmd.addCommand(configSetCommand());
  cmd.addCommand(configUnsetCommand());
  cmd.addCommand(configPathCommand());
  cmd.addCommand(configUseProfileCommand());
  cmd.addHelpText(
    "after",
    `\nPrecedence: flag > environment (SVC_*) > profile ([profiles.NAME], chosen by --profile, SVC_PROFILE or \`svc config use-profile\`) > top level of the file > defaults.\nWith no endpoint configured, svc uses a local svc lite at ${LOCAL_LITE_ENDPOINT} and its root token.\n`,
  );
  return examples(cmd, ["svc config set account_endpoint https://a.example.com", "svc config list", "svc config path"]);
}
