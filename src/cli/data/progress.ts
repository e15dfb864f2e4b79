/**
 * A one-line progress display for `read`/`tail` on a terminal (records, bytes, rate, lag to
 * the tail), redrawn in place on stderr. Off unless stderr is a TTY, and never under `CI` or
 * `--quiet`; the final `--stats` summary is separate and works anywhere.
 */
import type { StreamPosition } from "../../types.js";

export function humanBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 2 : 1)} ${units[i]}`;
}

export class ReadProgress {
  records = 0;
  bytes = 0;
  first: number | undefined;
  last: number | undefined;
  private tail: number | undefined;
  private readonly started = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private drawn = false;

  constructor(private readonly enabled: boolean, private readonly stderr: NodeJS.WriteStream = process.stderr) {
    if (enabled) {
      this.timer = setInterval(() => this.draw(), 250);
      this.timer.unref();
    }
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

  /** Writes a stderr line without tearing the progress line. */
  above(line: string): void {
    this.clear();
    this.stderr.write(`${line}\n`);
  }

  stop(): void {
    clearInterval(this.timer);
    this.clear();
  }

  summary(): string {
    const secs = Math.max(this.elapsedMs(), 1) / 1000;
    const range = this.first === undefined ? "" : ` ${this.first}..=${this.last}`;
    return `read ${this.records} records (${humanBytes(this.bytes)})${range} in ${secs.toFixed(1)}s (${humanBytes(Math.round(this.bytes / secs))}/s)`;
  }

  private draw(): void {
    const secs = Math.max(this.elapsedMs(), 1) / 1000;
    const lag = this.tail !== undefined && this.last !== undefined ? ` · lag ${Math.max(0, this.tail - this.last - 1)}` : "";
    const what = this.records === 0 ? "waiting for records" : `${this.records} records · ${humanBytes(this.bytes)} · ${humanBytes(Math.round(this.bytes / secs))}/s`;
    this.stderr.write(`\r\x1b[2K⦿ ${what}${lag}`);
    this.drawn = true;
  }

  private clear(): void {
    if (!this.enabled || !this.drawn) return;
    this.stderr.write("\r\x1b[2K");
    this.drawn = false;
  }
}
