/**
 * Progress for the data commands, through the one output module (output.ts):
 *
 * - `live`: one status line redrawn in place on a terminal stderr (records, bytes, rate, and
 *   the last acked position or the lag to the tail), cleared before anything else is printed;
 * - `periodic`: for logs (no terminal, e.g. CI), a plain line every few seconds at most;
 * - `off`.
 *
 * The final summary is separate and printed by the command.
 */
import { seqRange } from "../format/seq-range.js";
import { humanByteRate, humanBytes } from "../format/units.js";
import type { StreamPosition } from "../types.js";
import type { Output } from "./output.js";

type ProgressMode = "live" | "periodic" | "off";

/** Redraw period on a terminal, and the least time between two lines in a log. */
const LIVE_MS = 250;
const PERIODIC_MS = 5_000;

export { humanBytes };

/** `live` on a terminal, else `periodic` or `off` as the caller prefers; `off` under --quiet. */
export function progressMode(out: Output, wanted: boolean, inLogs: "periodic" | "off"): ProgressMode {
  if (!wanted || out.quiet || out.json) return "off";
  return out.liveWanted ? "live" : inLogs;
}

/** Calls `render` on a timer and shows its line live or periodically. */
export class StatusTicker {
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly out: Output,
    readonly mode: ProgressMode,
    render: () => string,
  ) {
    if (mode === "off") return;
    const show = mode === "live" ? () => out.live(render()) : () => out.info(render());
    this.timer = setInterval(show, mode === "live" ? LIVE_MS : PERIODIC_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.out.clearLive();
  }
}

/** What a read has printed so far; its live line and its `--stats` summary. */
export class ReadProgress {
  records = 0;
  bytes = 0;
  first: number | undefined;
  last: number | undefined;
  private tail: number | undefined;
  private readonly started = Date.now();
  private readonly ticker: StatusTicker;

  constructor(out: Output, mode: ProgressMode) {
    this.ticker = new StatusTicker(out, mode, () => this.line());
  }

  add(count: number, bytes: number, firstSeq: number, lastSeq: number): void {
    this.records += count;
    this.bytes += bytes;
    this.first ??= firstSeq;
    this.last = lastSeq;
  }

  seeTail(tail: StreamPosition | undefined): void {
    if (tail) this.tail = tail.seqNum;
  }

  elapsedMs(): number {
    return Date.now() - this.started;
  }

  stop(): void {
    this.ticker.stop();
  }

  summary(): string {
    const secs = Math.max(this.elapsedMs(), 1) / 1000;
    const range = this.first === undefined ? "" : ` ${seqRange(this.first, this.last!)}`;
    return `read ${this.records} record${this.records === 1 ? "" : "s"} (${humanBytes(this.bytes)} metered)${range} in ${secs.toFixed(1)}s (${humanByteRate(this.bytes / secs)})`;
  }

  line(): string {
    const secs = Math.max(this.elapsedMs(), 1) / 1000;
    const lag =
      this.tail !== undefined && this.last !== undefined ? ` · lag ${Math.max(0, this.tail - this.last - 1)}` : "";
    const what =
      this.records === 0
        ? "waiting for records"
        : `${this.records} record${this.records === 1 ? "" : "s"} · ${humanBytes(this.bytes)} metered · ${humanByteRate(this.bytes / secs)}`;
    return `⦿ ${what}${lag}`;
  }
}
