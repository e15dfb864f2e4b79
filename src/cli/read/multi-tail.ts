/**
 * `svc tail` of several streams (URIs and `svc://basin/prefix*` patterns), like kcat with
 * several topics or stern with several pods:
 *
 * - each stream has its own read session (HTTP/2 streams on one connection); it starts with
 *   its last `-n` records (or `--since`), or at its checkpointed position, or, for a stream a
 *   pattern finds later, at its first record;
 * - order: each stream's records stay in order; across streams, batches interleave by arrival
 *   and a batch is written whole;
 * - text lines carry the stream's label (`[app-1] `, coloured on a terminal), JSON records
 *   `basin` and `stream` fields (stream-prefix.ts);
 * - `--checkpoint FILE` keeps every stream's next sequence number (checkpoint.ts), rewritten
 *   after each written batch; a rerun resumes each stream it names there;
 * - with `-f`, patterns are listed again every `--discover-interval`; a deleted stream is
 *   announced on stderr, dropped (and from the checkpoint) and the others go on; the command
 *   ends when nothing is left to follow and no pattern could find more, or at Ctrl-C (130).
 */
import type { ChalkInstance } from "chalk";
import type { SvcClient } from "../../client/client.js";
import { RangeNotSatisfiableError, SvcError } from "../../errors.js";
import { prefixRecord, streamLabel, withStreamFields } from "../../format/stream-prefix.js";
import { escapeJson, escapeLine } from "../../format/terminal-text.js";
import { sleep } from "../../sleep.js";
import type { ReadEvent, SequencedRecord } from "../../types.js";
import type { Context } from "../context.js";
import { attempt, ExitRequest } from "../failure.js";
import { Interrupt } from "../interrupt.js";
import { Arrivals } from "./arrivals.js";
import { readPositions, writePositions } from "./checkpoint.js";
import { gapError, SeqContinuity, warnGaps } from "./gaps.js";
import type { ReadSinkPlan } from "./read-run.js";
import { RecordPrinter } from "./record-printer.js";
import { RecordWriter } from "./record-writer.js";
import { matching, type StreamRef, streamRef, type TailTarget, targetText } from "./stream-set.js";
import { tailEvents } from "./tail-window.js";

export interface MultiTailPlan {
  targets: TailTarget[];
  lines: number;
  /** `--since`: start each stream at this time instead of its last `lines` records. */
  since?: number;
  follow: boolean;
  discoverMs: number;
  /** Labels on text lines, fields in JSON (`--no-prefix` turns them off). */
  labels: boolean;
}

type Start = "window" | "beginning";

const PALETTE = ["cyan", "green", "yellow", "magenta", "blue", "red"] as const;

/** A stream that went away under its reader. */
function gone(e: unknown): boolean {
  return (
    e instanceof SvcError &&
    ["stream_not_found", "stream_deletion_pending", "basin_not_found", "basin_deletion_pending"].includes(e.code)
  );
}

export async function runMultiTail(
  ctx: Context,
  client: SvcClient,
  plan: MultiTailPlan,
  sink: ReadSinkPlan,
): Promise<void> {
  const run = new MultiTail(
    ctx,
    client,
    plan,
    sink,
    await RecordWriter.open(sink.output, sink.appendOutput),
    sink.output === undefined ? await ctx.out.dataChalk() : undefined,
  );
  await run.run();
}

class MultiTail {
  private readonly interrupt = new Interrupt();
  private readonly arrivals = new Arrivals<{ ref: StreamRef; records: SequencedRecord[] }>();
  private readonly followers = new Map<string, AbortController>();
  private readonly positions: Map<string, number>;
  /** Each stream's continuity: from its checkpointed position, then from each batch written. */
  private readonly continuity = new Map<string, SeqContinuity>();
  private readonly printer: RecordPrinter;
  private readonly oneBasin: boolean;
  /** Records go to a terminal: bodies, labels and names are shown escaped, as one stream's are (read-run.ts). */
  private readonly terminal: boolean;
  private readonly colours = new Map<string, (typeof PALETTE)[number]>();
  private failure: unknown;
  private starting = true;

  constructor(
    private readonly ctx: Context,
    private readonly client: SvcClient,
    private readonly plan: MultiTailPlan,
    private readonly sink: ReadSinkPlan,
    private readonly writer: RecordWriter,
    private readonly chalk: ChalkInstance | undefined,
  ) {
    this.positions = sink.checkpoint ? (readPositions(sink.checkpoint) ?? new Map()) : new Map();
    this.terminal = !writer.isFile && ctx.out.dataOnTerminal;
    this.printer = new RecordPrinter({ ...sink.printer, terminal: this.terminal });
    this.oneBasin = new Set(plan.targets.map((t) => t.basin)).size === 1;
    // One listener fans the interrupt out to every stream's reader (one per stream on one
    // signal made Node warn of a leak past ten streams).
    this.interrupt.signal.addEventListener("abort", () => {
      for (const f of this.followers.values()) f.abort();
      // Following nothing yet (a pattern that matches no stream), the consumer waits on no one.
      this.arrivals.close();
    });
  }

  async run(): Promise<void> {
    const patterns = this.plan.targets.filter((t) => t.kind === "prefix");
    try {
      const refs = await attempt("tail", this.plan.targets.map(targetText).join(" "), () => this.initialStreams());
      for (const ref of refs) this.start(ref, "window");
      if (this.plan.follow) {
        const what =
          patterns.length > 0
            ? `; new streams matching ${patterns.map(targetText).join(", ")} are picked up every ${this.plan.discoverMs / 1000} s`
            : "";
        this.ctx.out.info(`following ${refs.length} stream${refs.length === 1 ? "" : "s"}${what} (Ctrl-C to stop)`);
        if (patterns.length > 0) void this.discover(patterns);
      }
      this.starting = false;
      this.maybeFinish();
      for await (const item of this.arrivals) {
        if (this.interrupt.signal.aborted) break;
        await this.emit(item.ref, item.records);
      }
    } finally {
      this.arrivals.discard();
      for (const f of this.followers.values()) f.abort();
      this.interrupt.dispose();
    }
    await this.writer.close();
    if (this.failure !== undefined) throw this.failure;
    if (this.interrupt.which) throw new ExitRequest(this.interrupt.exitCode);
  }

  /** The streams named and those the patterns match now; a named stream must exist (exit 4). */
  private async initialStreams(): Promise<StreamRef[]> {
    const refs = new Map<string, StreamRef>();
    for (const t of this.plan.targets) {
      if (t.kind === "stream") {
        await this.client.basin(t.basin).stream(t.stream).checkTail();
        const ref = streamRef(t.basin, t.stream);
        refs.set(ref.uri, ref);
      } else {
        const found = await matching(this.client, t);
        if (found.length === 0)
          this.ctx.out.info(`no stream matches ${targetText(t)}${this.plan.follow ? " yet" : ""}`);
        for (const ref of found) refs.set(ref.uri, ref);
      }
    }
    return [...refs.values()];
  }

  private start(ref: StreamRef, from: Start): void {
    // Colours in the order streams are first followed (arguments, then names): stable per run.
    if (!this.colours.has(ref.uri)) this.colours.set(ref.uri, PALETTE[this.colours.size % PALETTE.length]!);
    this.continuity.set(ref.uri, new SeqContinuity(this.positions.get(ref.uri)));
    const ac = new AbortController();
    // Ctrl-C reaches every follower through the one listener of the constructor, not one each.
    if (this.interrupt.signal.aborted) ac.abort();
    this.followers.set(ref.uri, ac);
    void this.follow(ref, from, ac.signal)
      .catch((e: unknown) => {
        if (ac.signal.aborted || e instanceof RangeNotSatisfiableError) return;
        if (gone(e)) {
          this.ctx.out.info(`${ref.uri} was deleted; no longer following it`);
          this.positions.delete(ref.uri);
          this.savePositions();
          return;
        }
        this.failure ??= e;
        this.arrivals.close();
        this.interrupt.abort("failed");
      })
      .finally(() => {
        if (this.followers.get(ref.uri) === ac) this.followers.delete(ref.uri);
        this.maybeFinish();
      });
  }

  private async follow(ref: StreamRef, from: Start, signal: AbortSignal): Promise<void> {
    for await (const ev of this.events(ref, from, signal)) {
      if (ev.type === "batch" && ev.records.length > 0) await this.arrivals.put({ ref, records: ev.records });
      if (signal.aborted) return;
    }
  }

  private events(ref: StreamRef, from: Start, signal: AbortSignal): AsyncGenerator<ReadEvent> {
    const sc = this.client.basin(ref.basin).stream(ref.stream);
    const stopAtTail = this.plan.follow ? {} : { wait: 0 };
    const at = this.positions.get(ref.uri) ?? (from === "beginning" ? 0 : undefined);
    if (at !== undefined) return sc.read({ seqNum: at }, { clamp: true, ...stopAtTail }, { signal });
    if (this.plan.since !== undefined)
      return sc.read({ timestamp: this.plan.since }, { clamp: true, ...stopAtTail }, { signal });
    if (this.sink.printer.commands === "show")
      return sc.read({ tailOffset: this.plan.lines }, { clamp: true, ...stopAtTail }, { signal });
    return tailEvents(sc, this.plan.lines, this.plan.follow, signal);
  }

  /** Lists the patterns every `discoverMs`; a stream not followed now is new (or made again). */
  private async discover(patterns: Extract<TailTarget, { kind: "prefix" }>[]): Promise<void> {
    const signal = this.interrupt.signal;
    const warned = new Set<string>();
    while (!signal.aborted) {
      await sleep(this.plan.discoverMs, signal);
      for (const t of patterns) {
        if (signal.aborted) return;
        let found: StreamRef[];
        try {
          found = await matching(this.client, t);
          warned.delete(targetText(t));
        } catch (e) {
          if (!warned.has(targetText(t)))
            this.ctx.out.warn(
              `could not list ${targetText(t)}: ${(e as Error).message}; trying again every ${this.plan.discoverMs / 1000} s`,
            );
          warned.add(targetText(t));
          continue;
        }
        for (const ref of found) {
          if (this.followers.has(ref.uri) || signal.aborted) continue;
          this.ctx.out.info(
            `${ref.uri}: new, following from ${this.positions.has(ref.uri) ? "its checkpoint" : "its first record"}`,
          );
          this.start(ref, "beginning");
        }
      }
    }
  }

  /** The end: nothing is followed and nothing more can be found (no -f, or no pattern). */
  private maybeFinish(): void {
    if (this.starting || this.followers.size > 0) return;
    if (this.plan.follow && this.plan.targets.some((t) => t.kind === "prefix") && !this.interrupt.signal.aborted)
      return;
    this.arrivals.close();
  }

  /** Writes a batch of one stream; records skipped before or inside it are reported first (gaps.ts). */
  private async emit(ref: StreamRef, records: SequencedRecord[]): Promise<void> {
    const gaps = this.continuity.get(ref.uri)?.check(records) ?? [];
    if (gaps.length > 0 && this.sink.failOnGap) {
      // What came before the first gap is written; then the command fails (exit 5).
      const before = records.filter((r) => r.seqNum < gaps[0]!.from);
      if (before.length > 0) await this.write(ref, before);
      throw gapError(gaps[0]!, ref.uri, this.sink.checkpoint, true);
    }
    warnGaps(gaps, ref.uri, (m) => this.ctx.out.warn(m));
    await this.write(ref, records);
  }

  private async write(ref: StreamRef, records: SequencedRecord[]): Promise<void> {
    const label = this.plan.labels ? this.label(ref) : undefined;
    const json = this.sink.printer.template === undefined && this.sink.printer.format !== "text";
    const parts: Uint8Array[] = [];
    for (const r of records) {
      for (const p of this.printer.render([r]).pieces) {
        if ("err" in p) this.ctx.out.info(`${label?.text ?? ""}${p.err}`);
        else if (!label) parts.push(p.out);
        else if (json) {
          const line = withStreamFields(
            p.out.toString("utf8"),
            ref.basin,
            ref.stream,
            this.sink.printer.json.pretty === true,
          );
          parts.push(Buffer.from(this.terminal ? escapeJson(line) : line));
        } else parts.push(prefixRecord(p.out, label.bytes));
      }
    }
    if (parts.length > 0) {
      if (!this.writer.isFile) this.ctx.out.beforeData();
      await this.writer.write(Buffer.concat(parts));
    }
    this.positions.set(ref.uri, records[records.length - 1]!.seqNum + 1);
    this.savePositions();
  }

  private savePositions(): void {
    if (this.sink.checkpoint) writePositions(this.sink.checkpoint, this.positions);
  }

  private label(ref: StreamRef): { text: string; bytes: Buffer } {
    const label = streamLabel(ref.basin, ref.stream, this.oneBasin);
    const text = this.terminal ? escapeLine(label) : label;
    if (!this.chalk) return { text, bytes: Buffer.from(text) };
    const paint = this.chalk[this.colours.get(ref.uri) ?? PALETTE[0]];
    return { text, bytes: Buffer.from(`${paint(text.trimEnd())} `) };
  }
}
