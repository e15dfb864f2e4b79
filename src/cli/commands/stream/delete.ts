/** `svc stream delete <uri>`: asks first (or `--yes`), `--if-exists`, `--wait` until gone. */
import { Command } from "commander";
import { clientError } from "../../../errors.js";
import { flagAction } from "../../action.js";
import type { Context } from "../../context.js";
import { attempt } from "../../failure.js";
import { bool, flagList } from "../../flags/declare.js";
import { examples } from "../../help.js";
import { confirmOrStop } from "../../prompt.js";
import { formatUri, parseStreamUri } from "../../uri.js";
import { isDeletionPending, isNotFound } from "../basin/delete.js";
import { type WaitFlags, waitFlags } from "../create-options.js";

const FLAGS = flagList(
  bool("-y, --yes", "do not ask for confirmation"),
  bool("--if-exists", "succeed (exit 0) when it does not exist"),
  ...waitFlags("until the stream is gone (its name can be created again)"),
);

export function streamDeleteCommand(name = "delete"): Command {
  const cmd = new Command(name).description("Delete a stream and its records").argument("<uri>", "svc://basin/stream");
  flagAction(cmd, FLAGS, async (ctx, [arg], opts) => {
    const { basin, stream } = parseStreamUri(arg!);
    const uri = formatUri(basin, stream);
    // S2's spelling (delete-stream) keeps S2's contract: its CLI never asks (docs/s2.md).
    await confirmOrStop(ctx.out, `Delete stream ${uri} and all its records?`, opts.yes || name !== "delete", "deleted");
    const client = await ctx.client();
    let result = "deleting";
    try {
      await attempt("delete stream", uri, () => client.basin(basin).streams.delete(stream)).catch((e: unknown) => {
        if (!opts.wait || !isDeletionPending(e)) throw e; // already being deleted: wait for it
      });
      if (opts.wait) {
        await waitForStreamGone(ctx, basin, stream, opts);
        result = "deleted";
      }
      ctx.out.success(opts.wait ? `stream ${uri} deleted` : `stream ${uri} deletion requested`);
    } catch (e) {
      if (!opts.ifExists || !isNotFound(e)) throw e;
      result = "absent";
      ctx.out.success(`stream ${uri} does not exist`);
    }
    if (ctx.flags.json) await ctx.out.jsonDoc({ basin, name: stream, result });
  });
  return examples(cmd, [
    "svc stream delete svc://my-basin-01/events",
    "svc stream delete svc://my-basin-01/events --yes --if-exists --wait",
  ]);
}

/** Polls the basin's stream list until `stream` is no longer in it (not even as being deleted). */
async function waitForStreamGone(ctx: Context, basin: string, stream: string, f: WaitFlags): Promise<void> {
  const deadline = Date.now() + f.waitTimeout.ms;
  const client = await ctx.client();
  const uri = formatUri(basin, stream);
  await ctx.out.spin(`waiting for stream ${uri} to be gone`, async () => {
    for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
      const page = await attempt("list streams", formatUri(basin), () =>
        client.basin(basin).streams.list({ prefix: stream, limit: 1000 }),
      );
      if (!page.items.some((s) => s.name === stream)) return;
      if (Date.now() + delay > deadline)
        throw clientError("client_timeout", `stream ${uri} is still being deleted after ${f.waitTimeout.text}`);
      await new Promise((r) => setTimeout(r, delay));
    }
  });
}
