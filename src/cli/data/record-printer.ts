/**
 * Turns read batches into output: one chunk of bytes per batch for stdout (or a file), and
 * anchor-style lines for command records on stderr (`new fencing token "x" // 5 @ ts`).
 */
import type { SequencedRecord } from "../../types.js";
import { describeCommand, parseCommandRecord } from "../../format/record-command.js";
import type { RecordFilter } from "../../format/record-filter.js";
import { renderJson, renderTextBody, type InvalidUtf8Output, type JsonOptions, type OutputFormat } from "../../format/record-output.js";
import { compileTemplate } from "../../format/record-template.js";
import { formatTime, type TimeFormat } from "../../format/record-time.js";

export type CommandsMode = "show" | "skip" | "stderr";

export interface PrinterOptions {
  format: OutputFormat;
  template?: string;
  commands: CommandsMode;
  json: Omit<JsonOptions, "base64">;
  delimiter: Buffer;
  filter?: RecordFilter;
  invalidUtf8: InvalidUtf8Output;
  /** How command lines on stderr show timestamps. */
  timeFormat: TimeFormat;
}

/** Output pieces in order: bytes for stdout, or a line for stderr. */
export type Piece = { out: Buffer } | { err: string };

export interface Rendered {
  pieces: Piece[];
  /** Records written to the output (after filters and command handling). */
  printed: number;
  /** Data (non-command) records in the batch. */
  data: number;
}

export class RecordPrinter {
  private readonly line: (r: SequencedRecord) => Uint8Array | string;

  constructor(private readonly o: PrinterOptions) {
    if (o.template !== undefined) {
      const t = compileTemplate(o.template);
      this.line = t;
    } else if (o.format === "binary") {
      this.line = (r) => r.body;
    } else if (o.format === "text") {
      this.line = (r) => renderTextBody(r.body, o.invalidUtf8, r.seqNum);
    } else {
      const jo: JsonOptions = { ...o.json, base64: o.format === "json-base64", invalidUtf8: o.invalidUtf8 };
      this.line = (r) => renderJson(r, jo);
    }
  }

  render(records: readonly SequencedRecord[]): Rendered {
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
      const cmd = parseCommandRecord(r);
      if (cmd === undefined) data++;
      else if (this.o.commands === "skip") continue;
      else if (this.o.commands === "stderr") {
        flush();
        pieces.push({ err: `${describeCommand(cmd)} // ${r.seqNum} @ ${formatTime(r.timestamp, this.o.timeFormat)}` });
        continue;
      }
      if (this.o.filter && !this.o.filter(r)) continue;
      parts.push(this.line(r), this.o.delimiter);
      printed++;
    }
    flush();
    return { pieces, printed, data };
  }
}
