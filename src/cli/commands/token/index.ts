/** `svc token …`: access tokens (protocol.md §9). */
import { Command } from "commander";
import { examples } from "../../help.js";
import { tokenCreateCommand } from "./create.js";
import { tokenListCommand } from "./list.js";
import { tokenRevokeCommand } from "./revoke.js";

export function tokenCommand(): Command {
  const cmd = new Command("token").description("Manage access tokens: create, list, revoke");
  cmd.addCommand(tokenCreateCommand());
  cmd.addCommand(tokenListCommand().alias("ls"));
  cmd.addCommand(tokenRevokeCommand().alias("rm"));
  return examples(cmd, [
    "svc token create ci/reader --basins-exact my-basin-01 --streams-prefix '' --op-groups stream=r",
    "svc token list",
    "svc token revoke ci/reader --yes",
  ]);
}
