/**
 * Append input: stdin or `-i FILE`s in order, streamed chunk by chunk (never read whole,
 * except `--format binary`, whose record is at most 1 MiB anyway; with `--chunk`, a whole
 * input of any size streams as the pieces of one file, format/record-chunk.ts). Yields the records parsed
 * from each chunk, each with its metered size and its `file:line`. Whether a record keeps the
 * service's rules is checked once, by the client's appender (append-pipe.ts says which
 * record it refused). Aborting the signal stops reading at once (stdin is destroyed so a
 * pending read ends); records already parsed are still yielded.
 */

import { createHash, randomBytes } from "node:crypto";
import { SvcError } from "../../errors.js";
import { type ChunkMark, chunkHeader, chunkRoom } from "../../format/record-chunk.js";
import { type CommandRecord, parseCommandRecord } from "../../format/record-command.js";
import {
  decorate,
  type InputFormat,
  type InvalidUtf8,
  parseJsonRecord,
  RecordInputError,
  textRecord,
} from "../../format/record-input.js";
import { RecordSplitter, type Segment } from "../../format/record-split.js";
import { meteredSize } from "../../rules/records.js";
import { type AppendRecord, type Header, LIMITS } from "../../types.js";
import { fileChunks } from "./file-chunks.js";

export interface Parsed {
  readonly record: AppendRecord;
  /** Metered bytes. */
  readonly size: number;
  /** `file:line`, or the file alone for a whole input. */
  readonly where: string;
}

/** A record and where it came from; `where` is made only when asked (an error names it). */
class ParsedRecord implements Parsed {
  constructor(
    readonly record: AppendRecord,
    readonly size: number,
    private readonly file: string,
    private readonly line: number,
  ) {}

  get where(): string {
    return where(this.file, this.line);
  }
}

export interface InputOptions {
  files: string[];
  /** Records from the command line (`--body`, words after the URI), read instead of any file. */
  bodies?: string[];
  format: InputFormat;
  delimiter?: Buffer;
  invalidUtf8: InvalidUtf8;
  headers: Header[];
  timestamp?: () => number;
  template?: (line: string) => AppendRecord;
  /** Stop after this many records. */
  maxRecords?: number;
  /**
   * `--chunk`: a whole input (`format` binary) goes as the pieces of one file, each record at
   * most this many metered bytes, marked for `svc read --join` (format/record-chunk.ts).
   */
  chunk?: number;
  /** Called for a malformed record (`hint`: what to do about it); throw to stop, return to skip it. */
  onBad: (where: string, message: string, hint?: string) => void;
  /** A line too long to be a record is skipped (reported through `onBad`) rather than fatal. */
  skipOversize?: boolean;
  /**
   * Called for a command record (fence, trim) in the input, e.g. from `svc read --format json`
   * of another stream; true appends it, false drops it. Without it, command records are kept.
   */
  onCommand?: (where: string, cmd: CommandRecord) => boolean;
  /** Told, at the end of each input, how many `\r` bytes before a newline text input dropped (CRLF). */
  onCrDropped?: (count: number) => void;
}

/** A malformed record, exit 7: the message names file:line; `hint`, the sink's `hint:` line. */
export function inputError(where: string, message: string, hint?: string): SvcError {
  const e = new SvcError({
    code: "bad_input",
    message: `${where}: ${message}`,
    origin: "client",
    retryable: false,
    sideEffects: false,
  });
  if (hint !== undefined) Object.defineProperty(e, "hint", { value: hint, enumerable: false });
  return e;
}

function open(file: string): { stream: Input; name: string } {
  if (file === "-") return { stream: process.stdin, name: "stdin" };
  return { stream: fileChunks(file), name: file };
}

type Make = (bytes: Buffer, line: number) => Parsed | undefined;
type Input = AsyncIterable<Buffer | string> & { destroy(): void };

/** Records still allowed by `maxRecords`, shared across files. */
interface Budget {
  left: number;
}

export async function* inputRecords(o: InputOptions, signal: AbortSignal): AsyncGenerator<Parsed[]> {
  const budget: Budget = { left: o.maxRecords ?? Number.MAX_SAFE_INTEGER };
  if (o.bodies !== undefined) {
    const make = recordMaker(o, "--body");
    const out = o.bodies.slice(0, budget.left).flatMap((b, i) => make(Buffer.from(b, "utf8"), i + 1) ?? []);
    if (out.length > 0) yield out;
    return;
  }
  for (const file of o.files.length > 0 ? o.files : ["-"]) {
    if (signal.aborted || budget.left <= 0) return;
    const { stream, name } = open(file);
    const stop = (): void => stream.destroy();
    signal.addEventListener("abort", stop, { once: true });
    try {
      const make = recordMaker(o, name);
      if (o.format === "binary" && o.chunk !== undefined) yield* chunkedInput(stream, name, o, o.chunk, signal);
      else if (o.format === "binary") yield* wholeInput(stream, name, make, o, signal, budget);
      else yield* splitInput(stream, name, make, o, signal, budget);
    } catch (e) {
      if (signal.aborted && !(e instanceof SvcError)) return;
      if (e instanceof SvcError) throw e;
      throw inputError(name, (e as Error).message);
    } finally {
      signal.removeEventListener("abort", stop);
      if (file !== "-") stream.destroy();
    }
  }
}

/**
 * Bytes of one record (from `line`; 0 for a whole input) → the record, or undefined when it
 * is malformed (reported) or a dropped command record.
 */
function recordMaker(o: InputOptions, name: string): Make {
  return (bytes, line) => {
    try {
      const parsed = parse(o, bytes);
      const cmd = o.onCommand ? parseCommandRecord(parsed) : undefined;
      if (cmd && !o.onCommand!(where(name, line), cmd)) return undefined;
      // A command record travels as it is: no -H headers, no default timestamp.
      const record = cmd ? parsed : decorate(parsed, o.headers, o.timestamp);
      return new ParsedRecord(record, meteredSize(record), name, line);
    } catch (e) {
      if (!(e instanceof RecordInputError)) throw e;
      o.onBad(where(name, line), e.message, e.hint);
      return undefined;
    }
  };
}

function where(name: string, line: number): string {
  return line === 0 ? name : `${name}:${line}`;
}

/** `--format binary`: the whole input is one record (at most 1 MiB). */
async function* wholeInput(
  stream: Input,
  name: string,
  make: Make,
  o: InputOptions,
  signal: AbortSignal,
  budget: Budget,
): AsyncGenerator<Parsed[]> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    parts.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size > LIMITS.maxRecordBytes) {
      o.onBad(
        name,
        `the input is over ${LIMITS.maxRecordBytes} bytes (1 MiB), too large for one record`,
        "add --chunk to append it as several records of up to 1 MiB each, which `svc read --join` puts back together byte for byte",
      );
      stream.destroy();
      return;
    }
  }
  if (signal.aborted) return;
  const p = make(Buffer.concat(parts), 0);
  if (p) {
    budget.left--;
    yield [p];
  }
}

/**
 * `--chunk`: a whole input as the pieces of one file (format/record-chunk.ts), each body
 * `room` bytes but the last (whose header names the file's size and SHA-256, known only at
 * the end: a full piece is held until more bytes show it is not the last). Memory holds at
 * most two pieces. Headers (`-H`) and `--timestamp` go on every piece.
 */
async function* chunkedInput(
  stream: Input,
  name: string,
  o: InputOptions,
  maxRecord: number,
  signal: AbortSignal,
): AsyncGenerator<Parsed[]> {
  const room = chunkRoom(maxRecord, o.headers);
  const id = randomBytes(8).toString("hex");
  const hash = createHash("sha256");
  let index = 0;
  let size = 0;
  let pending: Buffer[] = [];
  let held = 0;
  const piece = (body: Buffer, last?: ChunkMark["last"]): Parsed => {
    const header = chunkHeader(last ? { id, index, last } : { id, index });
    index++;
    const record = decorate({ headers: [header], body }, o.headers, o.timestamp);
    return new ParsedRecord(record, meteredSize(record), name, 0);
  };
  for await (const chunk of stream) {
    const bytes = chunk as Buffer;
    hash.update(bytes);
    size += bytes.length;
    pending.push(bytes);
    held += bytes.length;
    // More than a piece held: the first `room` bytes are a piece, and not the last one.
    const out: Parsed[] = [];
    if (held > room) {
      let all = Buffer.concat(pending, held);
      while (all.length > room) {
        out.push(piece(all.subarray(0, room)));
        all = all.subarray(room);
      }
      pending = [all];
      held = all.length;
    }
    if (out.length > 0) yield out;
    if (signal.aborted) return;
  }
  if (signal.aborted) return;
  yield [piece(Buffer.concat(pending, held), { size, sha256: hash.digest("hex") })];
}

/** Delimited input (text, json, templates): the records of each chunk, numbered by line. */
async function* splitInput(
  stream: Input,
  name: string,
  make: Make,
  o: InputOptions,
  signal: AbortSignal,
  budget: Budget,
): AsyncGenerator<Parsed[]> {
  const json = o.format === "json" || o.format === "json-base64";
  const maxSegment = json || o.template ? 8 * LIMITS.maxRecordBytes : LIMITS.maxRecordBytes;
  const splitter = new RecordSplitter({
    // `-d` given (even `\n`) keeps every byte; text's default line ends drop CR of CRLF.
    ...(o.delimiter ? { delimiter: o.delimiter, stripCr: false } : {}),
    maxSegment,
    skipOversize: o.skipOversize === true,
  });
  const take = (segments: Segment[], firstLine: number): Parsed[] => {
    const out: Parsed[] = [];
    segments.forEach((seg, k) => {
      if (budget.left <= 0) return;
      if (!Buffer.isBuffer(seg)) {
        o.onBad(
          `${name}:${firstLine + k}`,
          `the line is ${seg.oversize} bytes; no record can be that large (at most ${maxSegment})`,
        );
        return;
      }
      if (json && isBlank(seg)) return;
      const p = make(seg, firstLine + k);
      if (p) {
        out.push(p);
        budget.left--;
      }
    });
    return out;
  };
  try {
    for await (const chunk of stream) {
      const first = splitter.count + 1;
      const batch = take(splitter.push(chunk as Buffer), first);
      if (batch.length > 0) yield batch;
      if (budget.left <= 0 || signal.aborted) break;
    }
    // An interrupted read drops the partial last line; a finished one keeps it.
    const last = signal.aborted || budget.left <= 0 ? undefined : splitter.end();
    if (last !== undefined) {
      const batch = take([last], splitter.count);
      if (batch.length > 0) yield batch;
    }
    if (splitter.strippedCr > 0) o.onCrDropped?.(splitter.strippedCr);
  } catch (e) {
    // A line too long to be a record: the rest of the input cannot be split reliably.
    if (e instanceof RecordInputError) throw inputError(`${name}:${e.line ?? splitter.count + 1}`, e.message, e.hint);
    throw e;
  }
}

function parse(o: InputOptions, bytes: Buffer): AppendRecord {
  if (o.template) return o.template(bytes.toString("utf8"));
  switch (o.format) {
    case "json":
      return parseJsonRecord(bytes.toString("utf8"), false);
    case "json-base64":
      return parseJsonRecord(bytes.toString("utf8"), true);
    case "binary":
      return { headers: [], body: bytes };
    default:
      return textRecord(bytes, o.invalidUtf8);
  }
}

function isBlank(seg: Buffer): boolean {
  for (const b of seg) if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false;
  return true;
}
