/**
 * Splits a byte stream into records at a delimiter (default `\n`), incrementally, so input of
 * any size streams through in bounded memory. By default (the `\n` delimiter, not asked for)
 * a `\r` before it is stripped, as text lines from Windows end in CRLF; every stripped byte is
 * counted (`strippedCr`) so the caller can say so. An explicit delimiter keeps every byte. A final segment without a delimiter is a record; an input that ends
 * with the delimiter has no extra empty record. A segment longer than `maxSegment` fails early,
 * naming its line, instead of buffering without bound; with `skipOversize` its bytes are
 * dropped as they come instead and, once the line ends, it takes its place in the output as an
 * `Oversize` (so the lines after it keep their numbers and the input goes on).
 */
import { RecordInputError } from "./record-input.js";

interface SplitOptions {
  delimiter?: Uint8Array;
  /** Strip one trailing `\r` (default: when the delimiter is `\n`); counted in `strippedCr`. */
  stripCr?: boolean;
  maxSegment?: number;
  /** Drop an overlong line (reporting it as an `Oversize`) instead of failing. */
  skipOversize?: boolean;
}

/** A line longer than `maxSegment`, skipped: how long it was. */
interface Oversize {
  oversize: number;
}

export type Segment = Buffer | Oversize;

export class RecordSplitter {
  private readonly delim: Buffer;
  private readonly stripCr: boolean;
  private readonly max: number;
  private readonly skipOversize: boolean;
  private pending: Buffer[] = [];
  private pendingLength = 0;
  /** Bytes of the current line already dropped (skipOversize). */
  private dropped = 0;
  /** Number of segments emitted so far; the next segment's line is `count + 1`. */
  count = 0;
  /** `\r` bytes stripped before a `\n` so far. */
  strippedCr = 0;

  constructor(opts: SplitOptions = {}) {
    this.delim = Buffer.from(opts.delimiter ?? Buffer.from("\n"));
    if (this.delim.length === 0) throw new RecordInputError("the delimiter must not be empty");
    this.stripCr = opts.stripCr ?? (this.delim.length === 1 && this.delim[0] === 0x0a);
    this.max = opts.maxSegment ?? Number.MAX_SAFE_INTEGER;
    this.skipOversize = opts.skipOversize === true;
  }

  /** The complete segments in `chunk` (plus what was pending before it). */
  push(chunk: Uint8Array): Segment[] {
    let buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let search = 0;
    let head: Buffer[] = [];
    if (this.pendingLength > 0) {
      if (this.delim.length > 1) {
        // The delimiter may straddle the pending bytes and this chunk.
        search = Math.max(0, this.pendingLength - this.delim.length + 1);
        buf = Buffer.concat([...this.pending, buf]);
      } else head = this.pending;
      this.pending = [];
      this.pendingLength = 0;
    }
    const out: Segment[] = [];
    let from = 0;
    for (;;) {
      const at = buf.indexOf(this.delim, search);
      if (at < 0) break;
      const seg = buf.subarray(from, at);
      out.push(this.finish(head.length > 0 ? Buffer.concat([...head, seg]) : seg));
      head = [];
      from = search = at + this.delim.length;
    }
    const rest = buf.subarray(from);
    this.pending = rest.length > 0 ? [...head, rest] : head;
    this.pendingLength = this.pending.reduce((n, b) => n + b.length, 0);
    if (this.pendingLength > this.max + this.delim.length) {
      if (!this.skipOversize)
        throw new RecordInputError(
          `the line is longer than ${this.max} bytes with no delimiter yet; no record can be that large`,
          this.count + 1,
        );
      // Keep only what may be the start of a delimiter; the rest of this line is dropped.
      const keep = this.delim.length - 1;
      const all = Buffer.concat(this.pending);
      this.dropped += all.length - keep;
      this.pending = keep > 0 ? [Buffer.from(all.subarray(all.length - keep))] : [];
      this.pendingLength = keep;
    }
    return out;
  }

  /** The last segment when the input did not end with a delimiter. */
  end(): Segment | undefined {
    if (this.pendingLength === 0 && this.dropped === 0) return undefined;
    const seg = Buffer.concat(this.pending);
    this.pending = [];
    this.pendingLength = 0;
    return this.finish(seg);
  }

  private finish(seg: Buffer): Segment {
    if (this.dropped > 0 || seg.length > this.max + 1) {
      if (!this.skipOversize)
        throw new RecordInputError(`the line is ${seg.length} bytes; no record can be that large`, this.count + 1);
      const oversize = this.dropped + seg.length;
      this.dropped = 0;
      this.count++;
      return { oversize };
    }
    this.count++;
    if (this.stripCr && seg.length > 0 && seg[seg.length - 1] === 0x0d) {
      this.strippedCr++;
      return seg.subarray(0, seg.length - 1);
    }
    return seg;
  }
}

/** `-d` values: `\n`, `\0`, `\t`, `\r\n`, `\\` and `\xHH` escapes; anything else literally. */
export function parseDelimiter(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c !== "\\" || i + 1 >= text.length) {
      bytes.push(...Buffer.from(c, "utf8"));
      continue;
    }
    const n = text[++i]!;
    if (n === "n") bytes.push(0x0a);
    else if (n === "r") bytes.push(0x0d);
    else if (n === "t") bytes.push(0x09);
    else if (n === "0") bytes.push(0x00);
    else if (n === "\\") bytes.push(0x5c);
    else if (n === "x" && /^[0-9a-fA-F]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(0x5c, ...Buffer.from(n, "utf8"));
  }
  return Buffer.from(bytes);
}
