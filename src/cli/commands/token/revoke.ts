/** `svc token revoke <id>`: asks first (or `--yes`); the token stops working at once. */
import { Command } from "commander";
import { flagAction } from "../../action.js";
import { attempt } from "../../failure.js";
import { bool, flagList } from "../../flags/declare.js";
import { examples } from "../../help.js";
import { confirmOrStop } from "../../prompt.js";

export function tokenRevokeCommand(): Command {
  const cmd = new Command("revoke").description("Revoke an access token").argument("<id>", "token id");
  flagAction(cmd, flagList(bool("-y, --yes", "do not ask for confirmation")), async (ctx, [id], opts) => {
    // S2's spelling (revoke-access-token) keeps S2's contract: its CLI never asks (docs/s2.md).
    await confirmOrStop(
      ctx.out,
      `Revoke access token ${JSON.stringify(id)}?`,
      opts.yes || cmd.name() !== "revoke",
      "revoked",
    );
    const client = await ctx.client();
    await attempt("revoke access token", id, () => client.accessTokens.revoke(id!));
    ctx.out.success(`access token ${JSON.stringify(id)} revoked`);
    if (ctx.flags.json) await ctx.out.jsonDoc({ id, result: "revoked" });
  });
  return examples(cmd, ["svc token revoke ci/reader --yes"]);
}
