/** `svc ls [basin|svc://basin/prefix]`: basins, or the streams of one basin (the S2 CLI's shortcut). */
import { Command } from "commander";
import { flagAction } from "../action.js";
import { examples } from "../help.js";
import { LIST_FLAGS } from "../list-options.js";
import { listBasins } from "./basin/list.js";
import { listStreams } from "./stream/list.js";

export function lsCommand(): Command {
  const cmd = new Command("ls")
    .description("List basins, or the streams of a basin")
    .argument("[basin]", "basin name, svc://basin or svc://basin/prefix");
  flagAction(cmd, LIST_FLAGS, (ctx, [target], opts) =>
    target === undefined ? listBasins(ctx, opts) : listStreams(ctx, target, opts),
  );
  return examples(cmd, ["svc ls", "svc ls my-basin-01"]);
}
