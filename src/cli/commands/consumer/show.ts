/** `svc consumer show <uri> <name>`: a consumer's position, when and by whom it was committed, the tail and the lag. */
import { Command } from "commander";
import { handler } from "../../action.js";
import { checkConsumerName } from "../../consumer/names.js";
import { PositionStore } from "../../consumer/positions.js";
import { consumerLines, consumerReport, tailOf } from "../../consumer/report.js";
import { attempt } from "../../failure.js";
import { examples } from "../../help.js";
import { formatUri, parseStreamUri } from "../../uri.js";

export function consumerShowCommand(): Command {
  const cmd = new Command("show")
    .description(
      "Show a consumer: its position (the next record it reads), when and by whom it was committed, and its lag behind the tail",
    )
    .argument("<uri>", "svc://basin/stream")
    .argument("<name>", "the consumer's name");
  cmd.action(
    handler(async (ctx, [arg, name]) => {
      const { basin, stream } = parseStreamUri(arg!);
      checkConsumerName(name!);
      const uri = formatUri(basin, stream);
      const b = (await ctx.client()).basin(basin);
      const store = new PositionStore(b, stream, name!);
      const report = await attempt(`show consumer ${name} of`, uri, async () => {
        const { commit } = await store.latest();
        if (commit === undefined) throw store.notFound();
        return consumerReport(basin, stream, name!, commit, await tailOf(b, stream));
      });
      if (ctx.flags.json) return ctx.out.jsonDoc(report);
      for (const l of consumerLines(report)) await ctx.out.line(l);
    }),
  );
  return examples(cmd, [
    "svc consumer show svc://my-basin-01/events billing",
    "svc consumer show svc://my-basin-01/events billing --json | jq .lag",
  ]);
}
