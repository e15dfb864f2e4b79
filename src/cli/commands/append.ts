/**
 * `svc append <uri>` (docs/design/cli.md, "Appending"): records from stdin or `-i FILE`s, one per line
 * (text, json, json-base64, or an `--input-template`), or each input whole (`--format binary`),
 * batched by linger / count / bytes and pipelined over an append session (or unary appends).
 */
import { Command } from "commander";
import { DEFAULT_MAX_INFLIGHT_BYTES } from "../../client/appender.js";
import { parseFormatName } from "../../format/format-name.js";
import { chunkRoom } from "../../format/record-chunk.js";
import { parseHeaderFlag } from "../../format/record-input.js";
import { compileInputTemplate } from "../../format/record-input-template.js";
import { parseDelimiter } from "../../format/record-split.js";
import { parseTimePoint } from "../../format/record-time.js";
import { LIMITS } from "../../types.js";
import { flagAction } from "../action.js";
import { type AppendPlan, runAppend } from "../append/append-run.js";
import { usageError } from "../failure.js";
import { CONDITION_FLAGS, conditionsOf } from "../flags/conditions.js";
import { bool, choice, type Flag, type FlagValues, flagList, list, valueFlag } from "../flags/declare.js";
import { count, millis, size } from "../flags/kinds.js";
import { parseCount, parseSize } from "../flags/numbers.js";
import { examples } from "../help.js";
import { formatUri, parseStreamUri } from "../uri.js";

/** `--rate 100/s`, `--rate-bytes 1MiB/s`: a count or size, optionally per second, above 0. */
function perSecond(parse: (text: string, name: string) => number) {
  return (text: string, name: string): number => {
    const n = parse(text.replace(/\/s$/, ""), name);
    if (n === 0) throw usageError(`${name} must be above 0`);
    return n;
  };
}

/**
 * `--chunk [size]`: each whole input as a file of several records of at most SIZE metered bytes
 * (default and most: 1 MiB, one record's limit), for `svc read --join`. The size is optional,
 * so commander takes the next word for it: a URI there is said so.
 */
function chunkFlag(): Flag<"--chunk [size]", number | undefined> {
  return {
    term: "--chunk [size]",
    help: "each input (stdin or each file), of any size, as several records of at most SIZE metered bytes (default and most: 1MiB) that `svc read --join` puts back together byte for byte (implies --whole)",
    check: (raw, name) => {
      if (raw.includes("://"))
        throw usageError(
          `${name} takes an optional SIZE, not ${JSON.stringify(raw)}`,
          "put the URI before --chunk, or give the size (--chunk 1MiB)",
        );
    },
    parse: (raw: string | boolean | undefined, name: string) => {
      if (raw === undefined || raw === false) return undefined;
      if (raw === true) return LIMITS.maxRecordBytes;
      return parseSize(raw, name, LIMITS.maxRecordBytes);
    },
  };
}

const FLAGS = flagList(
  list("-i, --input <file>", "read FILE (- = stdin); repeat for several files, in order"),
  list("--body <text>", "a record from the command line (in --format: text, or a JSON line); repeatable"),
  valueFlag(
    "--format <fmt>",
    "text (a line is a body; the CR of a CRLF line end is dropped and counted in the summary, -d '\\n' keeps every byte), json, json-base64 ({timestamp?, headers?: [[name, value]], body?} per line), or binary (each input is one record)",
    (raw) => parseFormatName(raw),
    { default: "text" },
  ),
  bool("--whole", "each input (stdin or each file) is one record (= --format binary)"),
  chunkFlag(),
  valueFlag(
    "-d, --delimiter <str>",
    "text: records end with STR instead of a newline (escapes \\n \\t \\0 \\r\\n \\xHH)",
    (raw) => {
      const d = parseDelimiter(raw);
      if (d.length === 0) throw usageError("the delimiter must not be empty");
      return d;
    },
  ),
  bool("-0, --null", "text: records end with a NUL byte"),
  choice(
    "--invalid-utf8 <mode>",
    "text: bytes that are not UTF-8 are kept (bytes), replaced with U+FFFD, or an error",
    ["bytes", "replace", "error"],
    { default: "bytes" },
  ),
  list("-H, --header <name=value>", "add a header to every record (name:=base64 for bytes); repeatable", (raw) =>
    parseHeaderFlag(raw),
  ),
  valueFlag(
    "--timestamp <time>",
    "client timestamp for records without one: epoch ms, RFC 3339, YYYY-MM-DD or now",
    (raw, name): number | "now" => (raw.trim() === "now" ? "now" : parseTimePoint(raw, name)),
  ),
  valueFlag(
    "--input-template <tpl>",
    "parse each line: %v body, %T timestamp (epoch ms or RFC 3339), %h{NAME} header value, e.g. '%T %h{type} %v'",
    (raw) => compileInputTemplate(raw),
  ),
  millis("--linger <dur>", "wait this long for more records before sending a batch", { default: "5ms" }),
  count("--max-batch-records <n>", `records per batch (≤ ${LIMITS.maxBatchRecords})`, {
    max: LIMITS.maxBatchRecords,
    default: String(LIMITS.maxBatchRecords),
  }),
  size("--max-batch-bytes <size>", "metered bytes per batch (≤ 1MiB)", { max: LIMITS.maxBatchBytes, default: "1MiB" }),
  // The client's default (client/appender.ts), written in MiB as the flag takes it.
  size("--max-inflight-bytes <size>", "unacknowledged bytes allowed in flight", {
    default: `${DEFAULT_MAX_INFLIGHT_BYTES / 2 ** 20}MiB`,
  }),
  millis(
    "--ack-timeout <dur>",
    "session: give up (exit 75) when no ack arrives for this long while batches are in flight (default: --timeout)",
  ),
  choice(
    "--transport <kind>",
    "session (pipelined; the default, except that an input of one small batch goes as one unary request), unary (one request per batch), or auto (session, else unary when the server has no sessions)",
    ["session", "unary", "auto"],
  ),
  valueFlag("--rate <n>", "at most N records per second (e.g. 100 or 100/s)", perSecond(parseCount)),
  valueFlag("--rate-bytes <size>", "at most SIZE metered bytes per second (e.g. 1MiB or 1MiB/s)", perSecond(parseSize)),
  count("--max-records <n>", "stop after N input records"),
  bool("--atomic", "the whole input is one batch, appended atomically (≤ 1000 records, ≤ 1 MiB)"),
  choice(
    "--acks <mode>",
    "per-batch acks: text (stderr), ndjson (stdout), none (default: a live progress line on a terminal, a line every few seconds in logs; text with -v or when the input is typed at a terminal)",
    ["text", "ndjson", "none"],
  ),
  bool("--dry-run", "parse and validate the input; send nothing"),
  choice("--on-error <mode>", "malformed records: fail (exit 7) or skip (with a warning)", ["fail", "skip"], {
    default: "fail",
  }),
  choice(
    "--commands <mode>",
    "command records in JSON input (fence, trim, e.g. from svc read): skip (default, with a note) or replay (fences only: a trim's sequence number belongs to another stream, so it is never replayed)",
    ["skip", "replay"],
    { default: "skip" },
  ),
  ...CONDITION_FLAGS,
);

type Flags = FlagValues<typeof FLAGS>;

export function appendCommand(): Command {
  const cmd = new Command("append")
    .description("Append records from stdin or files: one per line, or each input whole")
    .argument("<uri>", "svc://basin/stream")
    .argument("[words...]", "one record made of these words, joined by spaces (as echo; stdin is not read)");
  flagAction(cmd, FLAGS, async (ctx, [arg, ...words], f) => {
    const { basin, stream } = parseStreamUri(arg!);
    if (words.length > 0) {
      if (f.body.length > 0) throw usageError("use either --body or words after the URI");
      f.body = [words.join(" ")];
    }
    // Input typed at a terminal shares the screen with stderr: no live line drawn over the typing.
    const typed =
      f.body.length === 0 && (f.input.length === 0 || f.input.includes("-")) && process.stdin.isTTY === true;
    const plan = appendPlan(f, { verbose: ctx.out.verboseOn, json: ctx.out.json, typed });
    const client = await ctx.client();
    await runAppend(ctx, client.basin(basin).stream(stream), formatUri(basin, stream), {
      ...plan,
      appender: { ...plan.appender, onReconnect: (r) => ctx.out.verbose(`append session: ${r}`) },
    });
  });
  return examples(cmd, [
    "echo hello | svc append svc://my-basin-01/events",
    "svc append svc://my-basin-01/events hello world          # one record: hello world",
    "svc append svc://my-basin-01/events --body one --body two",
    "svc append svc://my-basin-01/events -i events.ndjson --format json",
    "svc read svc://a-basin-01/src --from-beginning -e --format json-base64 | svc append svc://b-basin-01/copy --format json-base64",
    "svc append svc://my-basin-01/blobs --format binary -i image.png -H content-type=image/png",
    "svc append svc://my-basin-01/files --whole --chunk -i backup.tar      # any size; svc read --join puts it back",
    "svc append svc://my-basin-01/events -m auto -F writer-1 --acks ndjson < lines.txt",
  ]);
}

/** `g.typed`: the input is typed at a terminal, so each acked batch gets a line instead of a live line. */
function appendPlan(f: Flags, g: { verbose?: boolean; json?: boolean; typed?: boolean } = {}): AppendPlan {
  let format = f.format;
  if (f.whole || f.chunk !== undefined) {
    const flag = f.whole ? "--whole" : "--chunk";
    if (format !== "text" && format !== "binary") throw usageError(`${flag} is --format binary; drop --format`);
    format = "binary";
  }
  if (f.chunk !== undefined) {
    const room = chunkRoom(f.chunk, f.header);
    if (room < 1)
      throw usageError(
        `--chunk ${f.chunk}: no room is left for any of the file's bytes beside the headers (${f.chunk - room + 1} metered bytes at least)`,
      );
    if (f.maxRecords !== undefined)
      throw usageError("--max-records counts records, which --chunk makes of a file; drop one");
  }
  if ((f.delimiter !== undefined || f.null) && format !== "text")
    throw usageError("-d/--delimiter and -0/--null apply to --format text only");
  if (f.delimiter !== undefined && f.null) throw usageError("use either -d/--delimiter or -0/--null");
  if (f.inputTemplate !== undefined && format !== "text")
    throw usageError("--input-template reads text lines; drop --format");
  const delimiter = f.null ? Buffer.from([0]) : f.delimiter;
  const ts = f.timestamp;
  if (f.maxBatchRecords === 0 || f.maxBatchBytes === 0)
    throw usageError("--max-batch-records and --max-batch-bytes must be above 0");
  if (f.maxInflightBytes < f.maxBatchBytes) throw usageError("--max-inflight-bytes must be at least --max-batch-bytes");
  const plan: AppendPlan = {
    input: {
      files: f.input,
      format,
      invalidUtf8: f.invalidUtf8,
      headers: f.header,
      ...(delimiter ? { delimiter } : {}),
      ...(ts === undefined ? {} : { timestamp: ts === "now" ? () => Date.now() : () => ts }),
      ...(f.inputTemplate !== undefined ? { template: f.inputTemplate } : {}),
      ...(f.maxRecords !== undefined ? { maxRecords: f.maxRecords } : {}),
      ...(f.chunk !== undefined ? { chunk: f.chunk } : {}),
    },
    onError: f.onError,
    batch: { lingerMs: f.linger, maxRecords: f.maxBatchRecords, maxBytes: f.maxBatchBytes },
    conds: conditionsOf(f),
    // Compression, --timeout and --retries reach the appender through the client.
    appender: {
      transport: f.transport ?? "session",
      unaryForOneBatch: f.transport === undefined && f.ackTimeout === undefined,
      maxInflightBytes: f.maxInflightBytes,
      ...(f.ackTimeout !== undefined ? { ackTimeoutMs: f.ackTimeout } : {}),
      onReconnect: () => undefined,
    },
    acks: f.acks ?? (g.json ? "none" : g.verbose || g.typed ? "text" : "progress"),
    json: g.json === true,
    commands: f.commands,
    dryRun: f.dryRun,
    atomic: f.atomic,
  };
  if (f.rate !== undefined) plan.rate = f.rate;
  if (f.rateBytes !== undefined) plan.rateBytes = f.rateBytes;
  if (f.input.filter((i) => i === "-").length > 1) throw usageError("stdin (-) can be read only once");
  if (f.body.length > 0) {
    if (f.input.length > 0) throw usageError("records come either from --body (or words after the URI) or from -i");
    if (format === "binary") throw usageError("--body is a text or JSON record; drop --whole/--chunk/--format binary");
    plan.input.bodies = f.body;
  }
  return plan;
}
