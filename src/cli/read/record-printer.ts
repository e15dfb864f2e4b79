/**
 * Turns read batches into output: one chunk of bytes per batch for stdout (or a file), and
 * lines in the S2 CLI's words for command records on stderr (`new fencing token "x" // 5 @ ts`).
 */
import { isUtf8 } from "node:buffer";
import { describeCommand, parseCommandRecord } from "../../format/record-command.js";
import type { RecordFilter } from "../../format/record-filter.js";
import {
  type InvalidUtf8Output,
  type JsonOptions,
  lossyFields,
  type OutputFormat,
  renderJson,
  renderTextBody,
} from "../../format/record-output.js";
import { compileTemplate } from "../../format/record-template.js";
import { formatTime, type TimeFormat } from "../../format/record-time.js";
import { escapeBody, escapeJson } from "../../format/terminal-text.js";
import { isCommandRecord } from "../../rules/commands.js";
import type { SequencedRecord } from "../../types.js";

type CommandsMode = "show" | "skip" | "stderr";

export interface PrinterOptions {
  format: OutputFormat;
  template?: string;
  commands: CommandsMode;
  json: Omit<JsonOptions, "base64">;
  delimiter: Buffer;
  filter?: RecordFilter;
  /** `--invalid-utf8`; unset: text writes bytes as they are, json writes U+FFFD and counts the record (`changed`). */
  invalidUtf8?: InvalidUtf8Output | undefined;
  /** How command lines on stderr show timestamps. */
  timeFormat: TimeFormat;
  /** Output goes to a terminal: control characters (and bytes that are not UTF-8) shown escaped (terminal-text.ts). */
  terminal?: boolean;
}

/** Output pieces in order: bytes for stdout, or a line for stderr. */
type Piece = { out: Buffer } | { err: string };

interface Rendered {
  pieces: Piece[];
  /** Records written to the output (after filters and command handling). */
  printed: number;
  /** Data (non-command) records in the batch. */
  data: number;
}

export class RecordPrinter {
  private readonly line: (r: SequencedRecord) => Uint8Array | string;
  /**
   * Bodies as they are, each followed by the delimiter (text or binary, no template or filter):
   * such a batch is copied once into one buffer. For text, "every body is valid UTF-8" is
   * checked once on the whole buffer: with a non-empty, valid UTF-8 delimiter the joined bytes
   * are valid exactly when every body is (no character can span a body and the delimiter).
   */
  private readonly bodies: "text" | "binary" | undefined;
  private readonly checkWhole: boolean;
  /** Whether a record's line lost bytes that are not UTF-8 (U+FFFD) without the user asking. */
  private readonly loses: (r: SequencedRecord) => boolean;
  /** Records printed with U+FFFD in place of bytes that are not UTF-8 (json, {headers}) without `--invalid-utf8`. */
  changed = 0;

  constructor(private readonly o: PrinterOptions) {
    const terminal = o.terminal === true;
    this.loses = () => false;
    if (o.template !== undefined) {
      const t = compileTemplate(o.template);
      this.line = terminal ? (r) => escapeBody(t(r)) : t;
      if (!terminal) this.loses = (r) => t.changes(r);
    } else if (o.format === "binary") {
      // Binary output reaches a terminal only with --force: exactly what was asked for.
      this.line = (r) => r.body;
    } else if (o.format === "text") {
      this.line = terminal
        ? (r) => escapeBody(o.invalidUtf8 === "error" ? renderTextBody(r.body, "error", r.seqNum) : r.body)
        : (r) => renderTextBody(r.body, o.invalidUtf8, r.seqNum);
    } else {
      const jo: JsonOptions = {
        ...o.json,
        base64: o.format === "json-base64",
        ...(o.invalidUtf8 !== undefined ? { invalidUtf8: o.invalidUtf8 } : {}),
      };
      this.line = terminal ? (r) => escapeJson(renderJson(r, jo)) : (r) => renderJson(r, jo);
      if (o.format === "json" && o.invalidUtf8 === undefined) this.loses = (r) => lossyFields(r, o.json.drop);
    }
    const plain = o.template === undefined && o.filter === undefined && !terminal;
    this.bodies = plain && (o.format === "text" || o.format === "binary") ? o.format : undefined;
    this.checkWhole = o.delimiter.length > 0 && isUtf8(o.delimiter);
  }

  render(records: readonly SequencedRecord[]): Rendered {
    if (this.bodies !== undefined) {
      const out = this.joinBodies(records);
      if (out !== undefined)
        return { pieces: records.length > 0 ? [{ out }] : [], printed: records.length, data: records.length };
    }
    return this.renderEach(records);
  }

  /** The fast path's one buffer, or undefined when a record needs the general path. */
  private joinBodies(records: readonly SequencedRecord[]): Buffer | undefined {
    const delim = this.o.delimiter;
    let size = 0;
    for (const r of records) {
      if (r.headers.length > 0 && isCommandRecord(r)) return undefined;
      size += r.body.length + delim.length;
    }
    const out = Buffer.allocUnsafe(size); // every byte is written below
    let at = 0;
    for (const r of records) {
      out.set(r.body, at);
      at += r.body.length;
      if (delim.length === 1) out[at++] = delim[0]!;
      else {
        out.set(delim, at);
        at += delim.length;
      }
    }
    if (this.bodies === "text" && this.o.invalidUtf8 !== undefined) {
      if (this.checkWhole ? !isUtf8(out) : records.some((r) => !isUtf8(r.body))) return undefined;
    }
    return out;
  }

  private renderEach(records: readonly SequencedRecord[]): Rendered {
    const pieces: Piece[] = [];
    let parts: (Uint8Array | string)[] = [];
    let printed = 0;
    let data = 0;
    const flush = (): void => {
      if (parts.length === 0) return;
      pieces.push({ out: Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : p))) });
      parts = [];
    };
    for (const r of records) {
      const choice = this.choose(r);
      if (choice.data) data++;
      if (choice.err !== undefined) {
        flush();
        pieces.push({ err: choice.err });
      }
      if (!choice.keep) continue;
      this.noteChanges(r);
      parts.push(this.line(r), this.o.delimiter);
      printed++;
    }
    flush();
    return { pieces, printed, data };
  }

  /** Counts `r` in `changed` when its line loses bytes (--split-dir metadata: with `drop` "body"). */
  noteChanges(r: SequencedRecord, drop?: "body"): void {
    const lost =
      drop === "body"
        ? this.o.format === "json" &&
          this.o.invalidUtf8 === undefined &&
          lossyFields(r, this.o.json.drop === "all" ? "all" : "body")
        : this.loses(r);
    if (lost) this.changed++;
  }

  /**
   * What happens to one record, whatever the output (stdout, a file, --split-dir): kept, or
   * dropped by --commands skip|stderr (with its stderr line) or by the filter (--grep, --filter).
   */
  choose(r: SequencedRecord): { keep: boolean; data: boolean; err?: string } {
    const cmd = parseCommandRecord(r);
    if (cmd !== undefined && this.o.commands === "skip") return { keep: false, data: false };
    if (cmd !== undefined && this.o.commands === "stderr") {
      return {
        keep: false,
        data: false,
        err: `${describeCommand(cmd)} // ${r.seqNum} @ ${formatTime(r.timestamp, this.o.timeFormat)}`,
      };
    }
    return { keep: !this.o.filter || this.o.filter(r), data: cmd === undefined };
  }
}
