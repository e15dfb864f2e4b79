/** `svc stream delete <uri>`: asks first (or `--yes`), `--if-exists`. */
import { Command, Option } from "commander";
import { handler } from "../../action.js";
import { attempt } from "../../failure.js";
import { examples } from "../../help.js";
import { confirmOrStop } from "../../prompt.js";
import { formatUri, parseStreamUri } from "../../uri.js";
import { isNotFound } from "../basin/delete.js";

export function streamDeleteCommand(name = "delete"): Command {
  const cmd = new Command(name)
    .description("Delete a stream and its records")
    .argument("<uri>", "svc://basin/stream")
    .addOption(new Option("-y, --yes", "do not ask for confirmation"))
    .addOption(new Option("--if-exists", "succeed (exit 0) when it does not exist"));
  cmd.action(
    handler<{ yes?: boolean; ifExists?: boolean }>(async (ctx, [arg], opts) => {
      const { basin, stream } = parseStreamUri(arg!);
      const uri = formatUri(basin, stream);
      await confirmOrStop(ctx.out, `Delete stream ${uri} and all its records?`, opts.yes, "deleted");
      const client = await ctx.client();
      let result = "deleting";
      try {
        await attempt("delete stream", uri, () => client.basin(basin).streams.delete(stream));
        ctx.out.success(`stream ${uri} deletion requested`);
      } catch (e) {
        if (!opts.ifExists || !isNotFound(e)) throw e;
        result = "absent";
        ctx.out.success(`stream ${uri} does not exist`);
      }
      if (ctx.flags.json) await ctx.out.jsonDoc({ basin, name: stream, result });
    }),
  );
  return examples(cmd, [
    "svc stream delete svc://my-basin-01/events",
    "svc stream delete svc://my-basin-01/events --yes --if-exists",
  ]);
}
