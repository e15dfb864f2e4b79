/** `svc token create <id>`: issues a token; stdout carries only the secret (shown once). */
import { Command } from "commander";
import { OP_GROUPS } from "../../../types.js";
import { flagAction } from "../../action.js";
import { ENV_VARS } from "../../env-vars.js";
import { attempt } from "../../failure.js";
import { bool, flagList } from "../../flags/declare.js";
import { examples } from "../../help.js";
import { impossibleNames, reachesNothing } from "./token-reach.js";
import { TOKEN_FLAGS, tokenRequest } from "./token-spec.js";

function groupsHelp(): string {
  return (["account", "basin", "stream"] as const)
    .flatMap((level) =>
      (["read", "write"] as const).map(
        (rw) => `  ${`${level}=${rw[0]}`.padEnd(10)} ${OP_GROUPS[level][rw].join(", ")}`,
      ),
    )
    .join("\n");
}

const FLAGS = flagList(
  ...TOKEN_FLAGS,
  bool("--env", `print \`export ${ENV_VARS.access_token}=…\` instead of the bare token`),
);

export function tokenCreateCommand(): Command {
  const cmd = new Command("create")
    .description("Issue an access token; prints only the token")
    .argument("<id>", "token id (1..96 bytes, e.g. ci/deploy)");
  cmd.addHelpText("after", `\nOperation groups (--op-groups LEVEL=r|w|rw):\n${groupsHelp()}`);
  flagAction(cmd, FLAGS, async (ctx, [id], opts) => {
    const info = tokenRequest(id!, opts);
    const nothing = reachesNothing(info.scope);
    if (nothing !== undefined) ctx.out.warn(`access token ${JSON.stringify(id)} can reach nothing: ${nothing}`);
    for (const w of impossibleNames(info.scope)) ctx.out.warn(`access token ${JSON.stringify(id)}: ${w}`);
    const client = await ctx.client();
    const secret = await attempt("create access token", id, () => client.accessTokens.issue(info));
    if (ctx.flags.json) await ctx.out.jsonDoc({ access_token: secret.reveal() });
    else if (opts.env) await ctx.out.line(`export ${ENV_VARS.access_token}=${secret.reveal()}`);
    else await ctx.out.line(secret.reveal());
    ctx.out.success(`access token ${JSON.stringify(id)} issued; it is shown only this once`);
  });
  return examples(cmd, [
    "svc token create ci/reader --basins-exact my-basin-01 --streams-prefix '' --op-groups stream=r --expires-in 30d",
    "svc token create tenant-42 --basins-exact my-basin-01 --streams-prefix tenant-42/ --auto-prefix-streams --op-groups basin=rw,stream=rw",
    "export SVC_ACCESS_TOKEN=$(svc token create ci/deploy --basins-prefix ci- --streams-prefix '' --op-groups account=rw,basin=rw,stream=rw)",
  ]);
}
