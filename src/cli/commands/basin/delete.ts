/** `svc basin delete <basin>`: asks first (or `--yes`), `--if-exists`, `--wait` until gone. */
import { Command } from "commander";
import { flagAction } from "../../action.js";
import type { Context } from "../../context.js";
import { attempt } from "../../failure.js";
import { bool, flagList } from "../../flags/declare.js";
import { examples } from "../../help.js";
import { confirmOrStop } from "../../prompt.js";
import { formatUri, parseBasinArg } from "../../uri.js";
import { type WaitFlags, waitFlags, waitForBasin } from "../create-options.js";

const FLAGS = flagList(
  bool("-y, --yes", "do not ask for confirmation"),
  bool("--if-exists", "succeed (exit 0) when it does not exist"),
  ...waitFlags("until the basin is gone"),
);

export function isNotFound(e: unknown): boolean {
  const err = (e as { error?: unknown }).error ?? e;
  return (err as { status?: number }).status === 404;
}

/** A delete of what is already being deleted: with --wait there is nothing to do but wait. */
export function isDeletionPending(e: unknown): boolean {
  const err = (e as { error?: unknown }).error ?? e;
  return /^(basin|stream)_deletion_pending$/.test(String((err as { code?: unknown }).code));
}

export function basinDeleteCommand(name = "delete"): Command {
  const cmd = new Command(name)
    .description("Delete a basin and all its streams")
    .argument("<basin>", "basin name or svc://basin");
  flagAction(cmd, FLAGS, async (ctx, [arg], opts) => {
    const basin = parseBasinArg(arg!);
    const uri = formatUri(basin);
    // S2's spelling (delete-basin) keeps S2's contract: its CLI never asks (docs/s2.md).
    await confirmOrStop(ctx.out, `Delete basin ${uri} and all its streams?`, opts.yes || name !== "delete", "deleted");
    const client = await ctx.client();
    try {
      await attempt("delete basin", uri, () => client.basins.delete(basin));
    } catch (e) {
      if (opts.wait && isDeletionPending(e)) return waitGone(ctx, basin, uri, opts);
      if (!opts.ifExists || !isNotFound(e)) throw e;
      ctx.out.success(`basin ${uri} does not exist`);
      if (ctx.flags.json) await ctx.out.jsonDoc({ name: basin, result: "absent" });
      return;
    }
    if (opts.wait) return waitGone(ctx, basin, uri, opts);
    ctx.out.success(`basin ${uri} deletion requested`);
    if (ctx.flags.json) await ctx.out.jsonDoc({ name: basin, result: "deleting" });
  });
  return examples(cmd, ["svc basin delete my-basin-01", "svc basin delete my-basin-01 --yes --if-exists --wait"]);
}

async function waitGone(ctx: Context, basin: string, uri: string, opts: WaitFlags): Promise<void> {
  await waitForBasin(ctx, basin, "gone", opts);
  ctx.out.success(`basin ${uri} deleted`);
  if (ctx.flags.json) await ctx.out.jsonDoc({ name: basin, result: "deleted" });
}
