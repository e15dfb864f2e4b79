/**
 * `svc read URI --consumer NAME` (docs/consumers.md): take the name over (positions.ts), read
 * from its position (on a first read, from the start the flags give, the tail by default;
 * afterwards the start flags are ignored, as `svc tail --checkpoint` ignores `-n`), and commit
 * what was printed as it goes and at the end (committer.ts).
 */
import type { StreamClient } from "../../client/stream.js";
import { RangeNotSatisfiableError } from "../../errors.js";
import { formatIso } from "../../format/record-time.js";
import type { Context } from "../context.js";
import { attempt, OperationError, usageError } from "../failure.js";
import { type ReadRunPlan, type ReadSinkPlan, runRead } from "../read/read-run.js";
import { beforeStdoutGoneExit } from "../stdout.js";
import { formatUri } from "../uri.js";
import { Committer } from "./committer.js";
import { checkConsumerName, positionStream } from "./names.js";
import { type Ownership, PositionStore, readerId } from "./positions.js";

export interface ConsumerReadOptions {
  consumer: string;
  /** Milliseconds between commits (`--commit-every`); 0: after every batch. */
  commitEveryMs: number;
  /** Whether a start flag (-s, --timestamp, --ago, --tail-offset, --from-beginning, --range) was given. */
  startGiven: boolean;
  checkpoint: string | undefined;
}

/** The read's plan, its start flags' own (`resumeAt` undefined) or from a position. */
export type PlanFor = (resumeAt?: number) => ReadRunPlan;

/** Checks what can be checked before any request: the name, and what `--consumer` cannot go with. */
export function checkConsumerRead(stream: string, o: ConsumerReadOptions): void {
  checkConsumerName(o.consumer);
  if (o.checkpoint !== undefined)
    throw usageError("--consumer and --checkpoint both keep a position: give one (--consumer keeps it in the service)");
  positionStream(stream, o.consumer);
}

export async function readAsConsumer(
  ctx: Context,
  basin: string,
  stream: string,
  o: ConsumerReadOptions,
  sink: ReadSinkPlan,
  planFor: PlanFor,
): Promise<void> {
  const uri = formatUri(basin, stream);
  const client = await ctx.client();
  const b = client.basin(basin);
  const sc = b.stream(stream);
  const store = new PositionStore(b, stream, o.consumer);
  const reader = readerId();
  const own = await attempt(`open consumer ${o.consumer} of`, uri, () =>
    store.takeOver(
      () => firstPosition(sc, planFor()),
      reader,
      (m) => ctx.out.warn(m),
    ),
  );
  say(ctx, uri, o, own);
  const committer = new Committer(store, own, { everyMs: o.commitEveryMs, out: ctx.out, uri, reader });
  beforeStdoutGoneExit(() => committer.close());
  committer.start();
  let failure: unknown;
  try {
    await runRead(ctx, sc, uri, planFor(own.position), sink, undefined, {
      written: (next) => committer.written(next),
      stop: committer.lost,
    });
  } catch (e) {
    failure = e;
  }
  let closing: unknown;
  try {
    await committer.close();
  } catch (e) {
    closing = e;
  } finally {
    beforeStdoutGoneExit(undefined);
  }
  // Lost to another reader: that is why the read stopped, whatever else happened.
  if (committer.takenOver) throw closing;
  if (failure !== undefined) throw beyondTailHint(failure, own.position);
  if (closing !== undefined) throw closing;
}

/** Where a first read starts: the start flags' position, resolved now so that it can be committed. */
async function firstPosition(sc: StreamClient, plan: ReadRunPlan): Promise<number> {
  const s = plan.start;
  // An explicit -s N (not --from-beginning, which is wherever the stream now starts).
  if ("seqNum" in s && plan.expectFrom !== undefined) {
    const tail = await sc.checkTail();
    if (s.seqNum > tail.seqNum && !plan.limits.clamp) throw new RangeNotSatisfiableError(tail, "client");
    return Math.min(s.seqNum, tail.seqNum);
  }
  try {
    const batch = await sc.readBatch(s, { count: 1, clamp: true });
    return batch.records[0]?.seqNum ?? (await sc.checkTail()).seqNum;
  } catch (e) {
    if (e instanceof RangeNotSatisfiableError) return e.tail.seqNum;
    throw e;
  }
}

/** On stderr: where the read resumes, or where a first read starts. */
function say(ctx: Context, uri: string, o: ConsumerReadOptions, own: Ownership): void {
  const name = o.consumer;
  if (own.commitsLost)
    ctx.out.warn(
      `consumer ${name}: its position stream holds no commit any more (expired or trimmed away); reading as a first read`,
    );
  const prev = own.previous;
  if (prev !== undefined) {
    const ignored = o.startGiven
      ? "; start flags apply only to a consumer's first read (`svc consumer reset` moves it)"
      : "";
    const by = prev.reader !== "" ? ` by ${prev.reader}` : "";
    ctx.out.info(
      `consumer ${name}: resuming ${uri} at ${own.position} (committed ${formatIso(prev.timestamp)}${by})${ignored}`,
    );
    return;
  }
  const where = o.startGiven
    ? ""
    : " (the tail: new records only; --from-beginning, -s N or --ago DUR start a first read earlier)";
  ctx.out.info(`consumer ${name}: first read of ${uri}, starting at ${own.position}${where}`);
}

/** A position beyond the tail (the stream was deleted and made again, or reset past it): how to move it. */
function beyondTailHint(e: unknown, position: number): unknown {
  if (!(e instanceof OperationError) || !(e.error instanceof RangeNotSatisfiableError)) return e;
  return new OperationError(
    e.operation,
    e.resource,
    e.error,
    `the consumer's position (${position}) is beyond the stream's tail (${e.error.tail.seqNum}): was the stream deleted and made again? \`svc consumer reset URI NAME --to-tail\` (or --to N) moves it`,
  );
}
