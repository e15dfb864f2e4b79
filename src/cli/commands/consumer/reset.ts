/**
 * `svc consumer reset <uri> <name> --to N|--to-tail|--to-start`: moves a consumer's position.
 * It takes the name over as a reader would (positions.ts), with a token nobody holds, so a
 * reader still running under the name stops at its next commit (exit 5) instead of writing
 * over the reset. Not confirmed first: the old position is printed, and a reset back to it
 * undoes it.
 */
import { Command } from "commander";
import type { StreamClient } from "../../../client/stream.js";
import { RangeNotSatisfiableError, SvcError } from "../../../errors.js";
import { flagAction } from "../../action.js";
import { checkConsumerName } from "../../consumer/names.js";
import { PositionStore, readerId } from "../../consumer/positions.js";
import { attempt, usageError } from "../../failure.js";
import { bool, flagList } from "../../flags/declare.js";
import { count } from "../../flags/kinds.js";
import { examples } from "../../help.js";
import { formatUri, parseStreamUri } from "../../uri.js";

const FLAGS = flagList(
  count("--to <seq>", "the position: the sequence number of the next record the consumer reads"),
  bool("--to-tail", "to the tail: skip everything written so far"),
  bool("--to-start", "to the first record still in the stream: read everything again"),
);

export function consumerResetCommand(): Command {
  const cmd = new Command("reset")
    .description(
      "Move a consumer's position; a reader running under the name stops at its next commit. The old position is printed, so a reset can be undone",
    )
    .argument("<uri>", "svc://basin/stream")
    .argument("<name>", "the consumer's name");
  flagAction(cmd, FLAGS, async (ctx, [arg, name], f) => {
    const { basin, stream } = parseStreamUri(arg!);
    checkConsumerName(name!);
    if ([f.to !== undefined, f.toTail, f.toStart].filter(Boolean).length !== 1)
      throw usageError("give exactly one of --to SEQ, --to-tail or --to-start");
    const uri = formatUri(basin, stream);
    const b = (await ctx.client()).basin(basin);
    const sc = b.stream(stream);
    const store = new PositionStore(b, stream, name!);
    const moved = await attempt(`reset consumer ${name} of`, uri, () =>
      store.reset(async () => {
        const tail = (await sc.checkTail()).seqNum;
        if (f.toTail) return tail;
        if (f.toStart) return firstSeq(sc, tail);
        if (f.to! > tail)
          throw new SvcError({
            code: "range_not_satisfiable",
            origin: "client",
            message: `--to ${f.to} is beyond the stream's tail (${tail}): a position is at most the tail`,
          });
        return f.to!;
      }, `reset by ${readerId()}`),
    );
    ctx.out.success(
      `consumer ${name} of ${uri} moved from ${moved.from.next} to ${moved.to}; a reader still running under the name stops at its next commit`,
    );
    if (ctx.flags.json) await ctx.out.jsonLine({ uri, consumer: name, from: moved.from.next, to: moved.to });
  });
  return examples(cmd, [
    "svc consumer reset svc://my-basin-01/events billing --to-start",
    "svc consumer reset svc://my-basin-01/events billing --to 1000",
    "svc consumer reset svc://my-basin-01/events billing --to-tail --json",
  ]);
}

/** The first record still in the stream (the tail when none is). */
async function firstSeq(sc: StreamClient, tail: number): Promise<number> {
  try {
    return (await sc.readBatch({ seqNum: 0 }, { count: 1, clamp: true })).records[0]?.seqNum ?? tail;
  } catch (e) {
    if (e instanceof RangeNotSatisfiableError) return e.tail.seqNum;
    throw e;
  }
}
