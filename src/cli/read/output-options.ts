/**
 * The output flags `read` and `tail` share (docs/design/cli.md, "Reading") and their parsing into a
 * printer and sink plan.
 */

import { parseFormatName } from "../../format/format-name.js";
import { allOf, grepFilter, parseFilter } from "../../format/record-filter.js";
import { parseDelimiter } from "../../format/record-split.js";
import { compileTemplate } from "../../format/record-template.js";
import { usageError } from "../failure.js";
import { bool, choice, type FlagValues, flagList, list, text, valueFlag } from "../flags/declare.js";
import type { ReadSinkPlan } from "./read-run.js";

export const OUTPUT_FLAGS = flagList(
  valueFlag(
    "--format <fmt>",
    "text, json, json-base64 (aliases raw, ndjson, base64, json-binsafe), or binary (exact bodies, no delimiter unless -0/--delimiter); --json = --format json",
    (raw) => parseFormatName(raw),
    { default: "text" },
  ),
  valueFlag(
    "--template <tpl>",
    "custom line, e.g. '{seq_num}\\t{timestamp:iso}\\t{header:NAME}\\t{body}'; also {body:base64|hex} {headers} {timestamp:ms|iso|relative} {size}",
    (raw) => {
      compileTemplate(raw);
      return raw;
    },
  ),
  bool("--omit-empty", "JSON: drop empty headers and body (as S2's CLI prints them)"),
  choice("--time-format <fmt>", 'JSON: add an ISO 8601 "time" field (iso); also for command lines', ["ms", "iso"]),
  bool("--pretty", "indented JSON, for people"),
  bool("-0, --null", "end each record with NUL instead of a newline"),
  valueFlag("--delimiter <str>", "end each record with STR (escapes \\n \\t \\0 \\xHH)", (raw) => parseDelimiter(raw)),
  bool("--headers-only", "JSON: drop bodies"),
  bool("--meta-only", "seq_num and timestamp only: JSON without headers and body; text prints SEQ<TAB>TIMESTAMP lines"),
  choice(
    "--commands <mode>",
    "command records (fence, trim): show, skip, or stderr (default: stderr for text, show for JSON)",
    ["show", "skip", "stderr"],
  ),
  valueFlag("--grep <regex>", "only records whose body matches", (raw) => grepFilter(raw)),
  list(
    "--filter <expr>",
    "only records with header:NAME=VALUE, or header:NAME; ! negates; repeatable (all must hold)",
    (raw) => parseFilter(raw),
  ),
  choice(
    "--invalid-utf8 <mode>",
    "bytes that are not UTF-8: replace (U+FFFD), error, or base64 (default: text writes them as they are; json writes U+FFFD and says so on stderr: use json-base64)",
    ["replace", "error", "base64"],
  ),
  text("-o, --output <file>", "write records to FILE (truncated) instead of stdout"),
  bool("--append-output", "with -o, append to FILE instead of truncating"),
  text("--split-dir <dir>", "write each record as DIR/<seq>.bin plus DIR/<seq>.json metadata"),
  text("--checkpoint <file>", "store the next seq num after each batch; when FILE exists, resume from it"),
  bool(
    "--fail-on-gap",
    "exit 5 when records a checkpoint, -s or the read itself expected were trimmed or expired before they were read (default: a warning, and the read goes on)",
  ),
  bool("--no-progress", "no progress line (shown only when stderr is a terminal)"),
  bool("--stats", "print a summary on stderr at the end"),
  bool("--force", "write --format binary to a terminal anyway"),
);

type OutputFlags = FlagValues<typeof OUTPUT_FLAGS>;

/**
 * The global `--json` on read/tail means `--format json`; with another `--format` it is an
 * error rather than ignored. `formatGiven`: whether --format came from the command line.
 */
export function applyJsonFlag(f: OutputFlags, json: boolean | undefined, formatGiven: boolean): void {
  if (!json) return;
  if (formatGiven && f.format !== "json")
    throw usageError(`--json is --format json; drop --json or --format ${f.format}`);
  f.format = "json";
}

/** Binary bodies would garble a terminal: refuse unless stdout is redirected, -o/--split-dir, or --force. */
export function checkBinaryTarget(sink: ReadSinkPlan, force: boolean | undefined, stdoutIsTty: boolean): void {
  if (
    sink.printer.format !== "binary" ||
    force ||
    !stdoutIsTty ||
    sink.output !== undefined ||
    sink.splitDir !== undefined
  )
    return;
  throw usageError(
    "refusing to write binary records to a terminal",
    "redirect stdout (> FILE, | cmd), use -o FILE, or add --force",
  );
}

export function sinkPlan(f: OutputFlags): ReadSinkPlan {
  const format = f.format;
  if (f.null && f.delimiter !== undefined) throw usageError("use either -0/--null or --delimiter");
  if (f.headersOnly && f.metaOnly) throw usageError("use either --headers-only or --meta-only");
  if (f.appendOutput && f.output === undefined) throw usageError("--append-output needs -o FILE");
  if (f.splitDir !== undefined && f.output !== undefined) throw usageError("use either -o or --split-dir");
  if (format === "binary" && f.template !== undefined)
    throw usageError("--template writes text lines; drop --format binary");
  const dropFlag = f.metaOnly ? "--meta-only" : f.headersOnly ? "--headers-only" : undefined;
  if (dropFlag !== undefined && f.template !== undefined)
    throw usageError(`${dropFlag} and --template: the template already chooses the fields`);
  if (dropFlag !== undefined && (format === "binary" || (format === "text" && f.headersOnly))) {
    throw usageError(
      `${dropFlag} shapes JSON output; use --format json${f.metaOnly ? " (text prints SEQ<TAB>TIMESTAMP lines with --meta-only)" : ""}`,
    );
  }
  // Text with --meta-only: one `seq_num<TAB>timestamp` line per record.
  const template =
    f.metaOnly && format === "text"
      ? f.timeFormat === "iso"
        ? "{seq_num}\t{timestamp:iso}"
        : "{seq_num}\t{timestamp}"
      : f.template;
  const delimiter = f.null ? Buffer.from([0]) : (f.delimiter ?? Buffer.from(format === "binary" ? "" : "\n"));
  const textual = format === "text" || format === "binary" || template !== undefined;
  const filter = allOf([...(f.grep !== undefined ? [f.grep] : []), ...f.filter]);
  const plan: ReadSinkPlan = {
    appendOutput: f.appendOutput,
    progress: f.progress,
    stats: f.stats,
    printer: {
      format,
      commands: f.commands ?? (textual ? "stderr" : "show"),
      json: {
        omitEmpty: f.omitEmpty,
        isoTime: f.timeFormat === "iso",
        pretty: f.pretty,
        drop: f.metaOnly ? "all" : f.headersOnly ? "body" : undefined,
      },
      delimiter,
      ...(f.invalidUtf8 !== undefined ? { invalidUtf8: f.invalidUtf8 } : {}),
      timeFormat: f.timeFormat ?? "ms",
    },
  };
  if (template !== undefined) plan.printer.template = template;
  if (filter) plan.printer.filter = filter;
  if (f.output !== undefined) plan.output = f.output;
  if (f.splitDir !== undefined) plan.splitDir = f.splitDir;
  if (f.checkpoint !== undefined) plan.checkpoint = f.checkpoint;
  if (f.failOnGap) plan.failOnGap = true;
  return plan;
}
