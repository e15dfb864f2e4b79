/**
 * `svc read --join`: the files that `svc append --whole --chunk` wrote as several records
 * (format/record-chunk.ts), put back together on stdout (or -o FILE), byte for byte. Each
 * piece's body is written as it comes, in order, so memory holds one batch whatever the
 * file's size; a file ends when its last piece came and its bytes have the size and SHA-256
 * that piece names. What breaks a file stops the read at that record, after writing what
 * came before it (the output is then incomplete, and the exit code says so):
 *
 * - a record that is no piece of a file, or whose header does not read, or a file whose
 *   bytes do not match its size and digest: `bad_input` (exit 7);
 * - a piece without the ones before it (the read started after them, or they were trimmed),
 *   a file cut off (another file starts before its last piece: an append that failed part
 *   way, or two appends at once), and a read that ends inside a file: `records_missing`
 *   (exit 5).
 *
 * Command records (fence, trim) carry no bytes of a file and are passed over.
 */
import { createHash, type Hash } from "node:crypto";
import { clientError } from "../../errors.js";
import { CHUNK_HEADER, chunkMarkOf } from "../../format/record-chunk.js";
import { seqRange } from "../../format/seq-range.js";
import { isCommandRecord } from "../../rules/commands.js";
import type { SequencedRecord } from "../../types.js";
import { usageError, withHint } from "../failure.js";

interface FileInProgress {
  id: string;
  /** The index the next piece must have. */
  next: number;
  size: number;
  hash: Hash;
  /** The sequence numbers of its first and latest pieces. */
  first: number;
  latest: number;
}

/** The output flags `--join` cannot go with (it writes the files' bytes, nothing else). */
interface JoinFlags {
  format: string;
  template?: string | undefined;
  grep?: unknown;
  filter: unknown[];
  metaOnly?: boolean | undefined;
  headersOnly?: boolean | undefined;
  splitDir?: string | undefined;
  checkpoint?: string | undefined;
  consumer?: string | undefined;
  null?: boolean | undefined;
  delimiter?: unknown;
  invalidUtf8?: string | undefined;
}

/**
 * Makes `sink` write joined files: their bytes, exactly (`--format binary`, no delimiter).
 * A checkpoint is refused: it would resume inside a file whose first pieces were written.
 */
export function joinSink(f: JoinFlags, sink: { printer: { format: string; delimiter: Buffer }; join?: boolean }): void {
  const clash: [boolean, string][] = [
    [f.format !== "text" && f.format !== "binary", `--format ${f.format}`],
    [f.template !== undefined, "--template"],
    [f.grep !== undefined || f.filter.length > 0, "--grep/--filter"],
    [f.metaOnly === true || f.headersOnly === true, "--meta-only/--headers-only"],
    [f.splitDir !== undefined, "--split-dir"],
    [f.null === true || f.delimiter !== undefined, "-0/--delimiter"],
    [f.invalidUtf8 !== undefined, "--invalid-utf8"],
  ];
  const given = clash.find(([on]) => on);
  if (given)
    throw usageError(`--join writes the files' bytes exactly, so ${given[1]} does not apply; drop one of them`);
  if (f.checkpoint !== undefined || f.consumer !== undefined)
    throw usageError(
      `--join and ${f.checkpoint !== undefined ? "--checkpoint" : "--consumer"}: a rerun would start inside a file whose first pieces were already written`,
      "read a whole file at a time (-s FIRST, the first record of a file), without --checkpoint",
    );
  sink.printer.format = "binary";
  sink.printer.delimiter = Buffer.alloc(0);
  sink.join = true;
}

export class ChunkJoiner {
  private file: FileInProgress | undefined;

  constructor(private readonly uri: string) {}

  /**
   * The bytes to write for `records`, in order, and the error of the first record that breaks
   * a file, if one does (its bytes and those after it are not among the pieces).
   */
  take(records: readonly SequencedRecord[]): { pieces: Uint8Array[]; error?: Error } {
    const pieces: Uint8Array[] = [];
    for (const r of records) {
      if (r.headers.length > 0 && isCommandRecord(r)) continue;
      const error = this.add(r);
      if (error) return { pieces, error };
      pieces.push(r.body);
    }
    return { pieces };
  }

  /** The read ended: a file it was in the middle of is incomplete. */
  finish(): void {
    const f = this.file;
    if (!f) return;
    throw withHint(
      clientError(
        "records_missing",
        `the read ended inside file ${f.id} of ${this.uri}: it got ${f.next === 1 ? "its first piece" : `pieces 0..${f.next - 1}`} (${f.next === 1 ? "record" : "records"} ${seqRange(f.first, f.latest)}), not its last one`,
      ),
      `its append may still be running, or may have failed part way; once it is complete, \`svc read ${this.uri} -s ${f.first} --join\` reads it from its first piece`,
    );
  }

  /** Takes `r` as the next piece; the error when it cannot be. */
  private add(r: SequencedRecord): Error | undefined {
    const mark = chunkMarkOf(r.headers);
    if (mark === undefined)
      return withHint(
        clientError(
          "bad_input",
          `record ${r.seqNum} of ${this.uri} is no piece of a file: it has no ${CHUNK_HEADER} header (--join reads what \`svc append --whole --chunk\` wrote)`,
        ),
        "without --join, --format binary writes each record's body as it is",
      );
    if (typeof mark === "string") return clientError("bad_input", `record ${r.seqNum} of ${this.uri}: ${mark}`);
    const f = this.file;
    if (f && (mark.id !== f.id || mark.index !== f.next)) return this.cutOff(f, r, mark);
    if (!f && mark.index !== 0) {
      const first = r.seqNum - mark.index;
      return withHint(
        clientError(
          "records_missing",
          `record ${r.seqNum} of ${this.uri} is piece ${mark.index} of file ${mark.id}, whose earlier pieces this read did not get: the read started after them, or they were trimmed`,
        ),
        first >= 0
          ? `if its pieces are consecutive, the file starts at record ${first}: \`svc read ${this.uri} -s ${first} --join\``
          : "its first pieces are not in the stream any more",
      );
    }
    const file = f ?? { id: mark.id, next: 0, size: 0, hash: createHash("sha256"), first: r.seqNum, latest: r.seqNum };
    this.file = file;
    file.next++;
    file.size += r.body.length;
    file.latest = r.seqNum;
    file.hash.update(r.body);
    if (!mark.last) return undefined;
    this.file = undefined;
    const sha256 = file.hash.digest("hex");
    if (file.size === mark.last.size && sha256 === mark.last.sha256) return undefined;
    return clientError(
      "bad_input",
      `file ${file.id} of ${this.uri} (records ${seqRange(file.first, file.latest)}) is not the file that was appended: its pieces hold ${file.size} bytes with SHA-256 ${sha256}, its last piece names ${mark.last.size} bytes with SHA-256 ${mark.last.sha256}`,
    );
  }

  /** `r` is not the piece `f` needs next. */
  private cutOff(f: FileInProgress, r: SequencedRecord, mark: { id: string; index: number }): Error {
    const got = `pieces 0..${f.next - 1} (records ${seqRange(f.first, f.latest)})`;
    if (mark.id === f.id)
      return clientError(
        "records_missing",
        `file ${f.id} of ${this.uri}: record ${r.seqNum} is piece ${mark.index}, after ${got}: ${mark.index > f.next ? `pieces ${seqRange(f.next, mark.index - 1)} are missing` : `piece ${mark.index} came twice`}`,
      );
    if (mark.index === 0)
      return withHint(
        clientError(
          "records_missing",
          `file ${f.id} of ${this.uri} stops after ${got}, without its last piece: record ${r.seqNum} starts another file (an append that failed or was stopped part way?)`,
        ),
        `\`svc read ${this.uri} -s ${r.seqNum} --join\` reads from the file that starts there`,
      );
    return withHint(
      clientError(
        "records_missing",
        `file ${f.id} of ${this.uri} is cut off after ${got}: record ${r.seqNum} is piece ${mark.index} of another file, ${mark.id} (two appends at once?)`,
      ),
      "append one file at a time to a stream: with -m auto an append that another one comes between fails (exit 5)",
    );
  }
}
