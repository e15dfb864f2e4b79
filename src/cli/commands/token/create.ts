/** `svc token create <id>`: issues a token; stdout carries only the secret (shown once). */
import { Command, Option } from "commander";
import { handler } from "../../action.js";
import { attempt } from "../../failure.js";
import { examples } from "../../help.js";
import { impossibleNames, OP_GROUPS, reachesNothing } from "./token-reach.js";
import { tokenRequest, type TokenFlags } from "./token-spec.js";

function groupsHelp(): string {
  return (["account", "basin", "stream"] as const)
    .flatMap((level) =>
      (["read", "write"] as const).map(
        (rw) => `  ${`${level}=${rw[0]}`.padEnd(10)} ${OP_GROUPS[level][rw].join(", ")}`,
      ),
    )
    .join("\n");
}

type Flags = TokenFlags & { env?: boolean };

export function tokenCreateCommand(): Command {
  const cmd = new Command("create")
    .description("Issue an access token; prints only the token")
    .argument("<id>", "token id (1..96 bytes, e.g. ci/deploy)")
    .addOption(new Option("--expires-in <duration>", "expire after this long (e.g. 30d, 12h)").conflicts("expiresAt"))
    .addOption(new Option("--expires-at <time>", "expire at this RFC 3339 time"))
    .addOption(new Option("--basins-prefix <prefix>", "basins starting with this").conflicts("basinsExact"))
    .addOption(new Option("--basins-exact <name>", "only this basin"))
    .addOption(new Option("--streams-prefix <prefix>", "streams starting with this").conflicts("streamsExact"))
    .addOption(new Option("--streams-exact <name>", "only this stream"))
    .addOption(
      new Option("--tokens-prefix <prefix>", "token ids starting with this (for token management)").conflicts(
        "tokensExact",
      ),
    )
    .addOption(new Option("--tokens-exact <id>", "only this token id"))
    .addOption(
      new Option(
        "--op-groups <groups>",
        "groups of operations, e.g. account=r,basin=rw,stream=w (what each grants: below)",
      ),
    )
    .addOption(new Option("--ops <ops>", "operations, comma-separated (list-basins,append,…; snake_case works too)"))
    .addOption(
      new Option(
        "--auto-prefix-streams",
        "prefix stream names with --streams-prefix on the way in, strip it on the way out",
      ),
    )
    .addOption(new Option("--from-file <file>", "the request body as JSON (flags given too override it); - for stdin"))
    .addOption(new Option("--env", "print `export SVC_ACCESS_TOKEN=…` instead of the bare token"));
  cmd.addHelpText("after", `\nOperation groups (--op-groups LEVEL=r|w|rw):\n${groupsHelp()}`);
  cmd.action(
    handler<Flags>(async (ctx, [id], opts) => {
      const info = tokenRequest(id!, opts);
      const nothing = reachesNothing(info.scope);
      if (nothing !== undefined) ctx.out.warn(`access token ${JSON.stringify(id)} can reach nothing: ${nothing}`);
      for (const w of impossibleNames(info.scope)) ctx.out.warn(`access token ${JSON.stringify(id)}: ${w}`);
      const client = await ctx.client();
      const secret = await attempt("create access token", id, () => client.accessTokens.issue(info));
      if (ctx.flags.json) await ctx.out.jsonDoc({ access_token: secret.reveal() });
      else if (opts.env) await ctx.out.line(`export SVC_ACCESS_TOKEN=${secret.reveal()}`);
      else await ctx.out.line(secret.reveal());
      ctx.out.success(`access token ${JSON.stringify(id)} issued; it is shown only this once`);
    }),
  );
  return examples(cmd, [
    "svc token create ci/reader --basins-exact my-basin-01 --streams-prefix '' --op-groups stream=r --expires-in 30d",
    "svc token create tenant-42 --basins-exact my-basin-01 --streams-prefix tenant-42/ --auto-prefix-streams --op-groups basin=rw,stream=rw",
    "export SVC_ACCESS_TOKEN=$(svc token create ci/deploy --basins-prefix ci- --streams-prefix '' --op-groups account=rw,basin=rw,stream=rw)",
  ]);
}
