/**
 * `svc fence <uri> <new-token>` (docs/design/cli.md, "Fence and trim"): appends a fence command record; the new
 * token (≤ 36 UTF-8 bytes) is checked locally; `""` or `--clear` clears it.
 */
import { Command } from "commander";
import { fenceCommandRecord } from "../../format/record-command.js";
import { flagAction } from "../action.js";
import { appendCommandRecord } from "../append/command-append.js";
import { usageError } from "../failure.js";
import { CONDITION_FLAGS, conditionsOf } from "../flags/conditions.js";
import { bool, flagList } from "../flags/declare.js";
import { examples } from "../help.js";
import { formatUri, parseStreamUri } from "../uri.js";

const FLAGS = flagList(bool("--clear", "clear the fencing token"), ...CONDITION_FLAGS);

export function fenceCommand(): Command {
  const cmd = new Command("fence")
    .description("Set (or clear) a stream's fencing token by appending a fence command record")
    .argument("<uri>", "svc://basin/stream")
    .argument("[new-token]", 'the new fencing token, at most 36 UTF-8 bytes ("" clears it)');
  flagAction(cmd, FLAGS, async (ctx, [arg, token], f) => {
    const { basin, stream } = parseStreamUri(arg!);
    if (f.clear && token !== undefined && token !== "") throw usageError("give either a new token or --clear");
    if (!f.clear && token === undefined)
      throw usageError("missing <new-token> (or --clear to clear the fencing token)");
    const next = f.clear ? "" : token!;
    const record = fenceCommandRecord(next);
    const client = await ctx.client();
    const what = next === "" ? "fence cleared" : `fence set to ${JSON.stringify(next)}`;
    const sc = client.basin(basin).stream(stream);
    await appendCommandRecord(ctx, sc, formatUri(basin, stream), "fence", record, conditionsOf(f), what);
  });
  return examples(cmd, [
    "svc fence svc://my-basin-01/events writer-2",
    "svc fence svc://my-basin-01/events writer-3 -F writer-2      # only if writer-2 holds the fence",
    "svc fence svc://my-basin-01/events --clear -F writer-3",
  ]);
}
