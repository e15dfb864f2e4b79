/**
 * `svc trim <uri> <seq-num>` (docs/design/cli.md, "Fence and trim"): appends a trim command record; records
 * before the trim point go eventually, not at once (protocol.md §7.7: svc lite carries a trim out
 * one sweep period after it; trim points only advance). The point may instead come
 * from `--keep-last N` (tail − N), `--before TIME` or `--older-than DUR` (the first record at or
 * after that time). `--dry-run` shows the effect. Like every destructive command it asks on a
 * terminal and, without one, refuses unless `--yes` (prompt.ts). A trim that would remove
 * nothing (the point is at or before the first record left) appends nothing and says so.
 *
 * Spelled S2's way, `trim s2://basin/stream POINT` (S2's URI and its trim point as an
 * argument), it keeps the contract of S2's CLI (docs/s2.md): the trim command record is
 * appended as asked, with no question and nothing read first.
 */
import { Command } from "commander";
import type { StreamClient } from "../../client/stream.js";
import { RangeNotSatisfiableError } from "../../errors.js";
import { trimCommandRecord } from "../../format/record-command.js";
import { parseTimePoint } from "../../format/record-time.js";
import { seqRange } from "../../format/seq-range.js";
import { flagAction } from "../action.js";
import { appendCommandRecord } from "../append/command-append.js";
import { attempt, usageError } from "../failure.js";
import { CONDITION_FLAGS, conditionsOf } from "../flags/conditions.js";
import { bool, flagList, valueFlag } from "../flags/declare.js";
import { count } from "../flags/kinds.js";
import { parseCount } from "../flags/numbers.js";
import { examples } from "../help.js";
import { confirmOrStop } from "../prompt.js";
import { formatUri, isS2Uri, parseStreamUri } from "../uri.js";

const FLAGS = flagList(
  count("--keep-last <n>", "keep only the last N records (trim point = tail − N)"),
  valueFlag("--before <time>", "remove records older than TIME (epoch ms, RFC 3339, YYYY-MM-DD)", (raw, name) =>
    parseTimePoint(raw, name),
  ),
  valueFlag("--older-than <dur>", "remove records older than DUR (e.g. 7d)", (raw, name) =>
    parseTimePoint(raw, name, { duration: "ago" }),
  ),
  bool("--dry-run", "show the trim point and how many records would go; change nothing"),
  bool("-y, --yes", "do not ask for confirmation (needed without a terminal)"),
  ...CONDITION_FLAGS,
);

export function trimCommand(): Command {
  const cmd = new Command("trim")
    .description(
      "Remove the records before a sequence number by appending a trim command record; the server removes them later (svc lite: one sweep period after, 2 s by default; S2: within about a minute), and reads still return them until then",
    )
    .argument("<uri>", "svc://basin/stream")
    .argument("[seq-num]", "the earliest sequence number to keep");
  flagAction(cmd, FLAGS, async (ctx, [arg, seq], f) => {
    const { basin, stream } = parseStreamUri(arg!);
    const given = [seq, f.keepLast, f.before, f.olderThan].filter((v) => v !== undefined).length;
    if (given !== 1) throw usageError("give exactly one of <seq-num>, --keep-last, --before or --older-than");
    const fixed = seq !== undefined ? parseCount(seq, "<seq-num>") : undefined;
    const uri = formatUri(basin, stream);
    const client = await ctx.client();
    const sc = client.basin(basin).stream(stream);
    if (fixed !== undefined && !f.dryRun && isS2Uri(arg!)) {
      // S2's spelling: as S2's CLI, no question, and no read (a token that may only trim can).
      await appendCommandRecord(ctx, sc, uri, "trim", trimCommandRecord(fixed), conditionsOf(f), `trim to ${fixed}`);
      return;
    }
    const point =
      fixed ?? (await attempt("find the trim point of", uri, () => trimPoint(sc, f.keepLast, f.before ?? f.olderThan)));
    const first = await attempt("read", uri, () => firstSeq(sc));
    const going = Math.max(0, point - first);
    if (f.dryRun || going === 0) {
      const range = going > 0 ? ` (${seqRange(first, point - 1)})` : "";
      ctx.out.info(
        f.dryRun
          ? `would trim to ${point}: ${going} record${going === 1 ? "" : "s"}${range} would go`
          : `nothing to trim: no record of ${uri} is before ${point} (the first is ${first}); nothing was appended`,
      );
      if (ctx.flags.json) await ctx.out.jsonLine({ trim_point: point, first_seq_num: first, records: going });
      return;
    }
    await confirmOrStop(
      ctx.out,
      `Trim ${uri}: remove ${going} record${going === 1 ? "" : "s"} (${seqRange(first, point - 1)})?`,
      f.yes,
      "trimmed",
    );
    await appendCommandRecord(ctx, sc, uri, "trim", trimCommandRecord(point), conditionsOf(f), `trim to ${point}`);
  });
  return examples(cmd, [
    "svc trim svc://my-basin-01/events 1000",
    "svc trim svc://my-basin-01/events --keep-last 100 --yes",
    "svc trim svc://my-basin-01/events --older-than 7d --dry-run",
  ]);
}

async function trimPoint(sc: StreamClient, keep: number | undefined, time: number | undefined): Promise<number> {
  const tail = (await sc.checkTail()).seqNum;
  if (keep !== undefined) return Math.max(0, tail - keep);
  try {
    const batch = await sc.readBatch({ timestamp: time! }, { count: 1, clamp: true });
    return batch.records[0]?.seqNum ?? tail;
  } catch (e) {
    if (e instanceof RangeNotSatisfiableError) return e.tail.seqNum;
    throw e;
  }
}

/** The first record still present (the tail when none is). */
async function firstSeq(sc: StreamClient): Promise<number> {
  try {
    const batch = await sc.readBatch({ seqNum: 0 }, { count: 1, clamp: true });
    return batch.records[0]?.seqNum ?? (await sc.checkTail()).seqNum;
  } catch (e) {
    if (e instanceof RangeNotSatisfiableError) return e.tail.seqNum;
    throw e;
  }
}
