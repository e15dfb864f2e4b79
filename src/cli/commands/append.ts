/**
 * `svc append <uri>` (docs/design/cli.md, "Appending"): records from stdin or `-i FILE`s, one per line
 * (text, json, json-base64, or an `--input-template`), or each input whole (`--format binary`),
 * batched by linger / count / bytes and pipelined over an append session (or unary appends).
 */
import { Command, Option } from "commander";
import { parseFormatName } from "../../format/format-name.js";
import { parseHeaderFlag, type InvalidUtf8 } from "../../format/record-input.js";
import { compileInputTemplate } from "../../format/record-input-template.js";
import { parseDelimiter } from "../../format/record-split.js";
import { parseTimePoint } from "../../format/record-time.js";
import { type AppendTransport, DEFAULT_MAX_INFLIGHT_BYTES } from "../../client/appender.js";
import { LIMITS } from "../../types.js";
import { handler } from "../action.js";
import { runAppend, type AppendPlan } from "../append/append-run.js";
import { addConditionOptions, parseConditions, type ConditionFlags } from "../flags/conditions.js";
import { parseCount, parseMillis, parseSize } from "../flags/numbers.js";
import { usageError } from "../failure.js";
import { examples } from "../help.js";
import { formatUri, parseStreamUri } from "../uri.js";

interface Flags extends ConditionFlags {
  input: string[];
  body: string[];
  format: string;
  whole?: boolean;
  delimiter?: string;
  null?: boolean;
  invalidUtf8: InvalidUtf8;
  header: string[];
  timestamp?: string;
  inputTemplate?: string;
  linger: string;
  maxBatchRecords: string;
  maxBatchBytes: string;
  maxInflightBytes: string;
  ackTimeout?: string;
  transport?: AppendTransport;
  rate?: string;
  rateBytes?: string;
  maxRecords?: string;
  atomic?: boolean;
  acks?: "text" | "ndjson" | "none";
  dryRun?: boolean;
  onError: "fail" | "skip";
  commands: "skip" | "replay";
}

const collect = (v: string, prev: string[]): string[] => [...prev, v];

export function appendCommand(): Command {
  const cmd = new Command("append")
    .description("Append records from stdin or files: one per line, or each input whole")
    .argument("<uri>", "svc://basin/stream")
    .argument("[words...]", "one record made of these words, joined by spaces (as echo; stdin is not read)")
    .addOption(
      new Option("-i, --input <file>", "read FILE (- = stdin); repeat for several files, in order")
        .argParser(collect)
        .default([]),
    )
    .addOption(
      new Option("--body <text>", "a record from the command line (in --format: text, or a JSON line); repeatable")
        .argParser(collect)
        .default([]),
    )
    .addOption(
      new Option(
        "--format <fmt>",
        "text (a line is a body; the CR of a CRLF line end is dropped and counted in the summary, -d '\\n' keeps every byte), json, json-base64 ({timestamp?, headers?: [[name, value]], body?} per line), or binary (each input is one record)",
      ).default("text"),
    )
    .addOption(new Option("--whole", "each input (stdin or each file) is one record (= --format binary)"))
    .addOption(
      new Option(
        "-d, --delimiter <str>",
        "text: records end with STR instead of a newline (escapes \\n \\t \\0 \\r\\n \\xHH)",
      ),
    )
    .addOption(new Option("-0, --null", "text: records end with a NUL byte"))
    .addOption(
      new Option(
        "--invalid-utf8 <mode>",
        "text: bytes that are not UTF-8 are kept (bytes), replaced with U+FFFD, or an error",
      )
        .choices(["bytes", "replace", "error"])
        .default("bytes"),
    )
    .addOption(
      new Option("-H, --header <name=value>", "add a header to every record (name:=base64 for bytes); repeatable")
        .argParser(collect)
        .default([]),
    )
    .addOption(
      new Option(
        "--timestamp <time>",
        "client timestamp for records without one: epoch ms, RFC 3339, YYYY-MM-DD or now",
      ),
    )
    .addOption(
      new Option(
        "--input-template <tpl>",
        "parse each line: %v body, %T timestamp (epoch ms or RFC 3339), %h{NAME} header value, e.g. '%T %h{type} %v'",
      ),
    )
    .addOption(new Option("--linger <dur>", "wait this long for more records before sending a batch").default("5ms"))
    .addOption(
      new Option("--max-batch-records <n>", `records per batch (≤ ${LIMITS.maxBatchRecords})`).default(
        String(LIMITS.maxBatchRecords),
      ),
    )
    .addOption(new Option("--max-batch-bytes <size>", "metered bytes per batch (≤ 1MiB)").default("1MiB"))
    .addOption(
      // The client's default (client/appender.ts), written in MiB as the flag takes it.
      new Option("--max-inflight-bytes <size>", "unacknowledged bytes allowed in flight").default(
        `${DEFAULT_MAX_INFLIGHT_BYTES / 2 ** 20}MiB`,
      ),
    )
    .addOption(
      new Option(
        "--ack-timeout <dur>",
        "session: give up (exit 75) when no ack arrives for this long while batches are in flight (default: --timeout)",
      ),
    )
    .addOption(
      new Option(
        "--transport <kind>",
        "session (pipelined; the default, except that an input of one small batch goes as one unary request), unary (one request per batch), or auto (session, else unary when the server has no sessions)",
      ).choices(["session", "unary", "auto"]),
    )
    .addOption(new Option("--rate <n>", "at most N records per second (e.g. 100 or 100/s)"))
    .addOption(new Option("--rate-bytes <size>", "at most SIZE metered bytes per second (e.g. 1MiB or 1MiB/s)"))
    .addOption(new Option("--max-records <n>", "stop after N input records"))
    .addOption(new Option("--atomic", "the whole input is one batch, appended atomically (≤ 1000 records, ≤ 1 MiB)"))
    .addOption(
      new Option(
        "--acks <mode>",
        "per-batch acks: text (stderr), ndjson (stdout), none (default: a live progress line on a terminal, a line every few seconds in logs; text with -v or when the input is typed at a terminal)",
      ).choices(["text", "ndjson", "none"]),
    )
    .addOption(new Option("--dry-run", "parse and validate the input; send nothing"))
    .addOption(
      new Option("--on-error <mode>", "malformed records: fail (exit 7) or skip (with a warning)")
        .choices(["fail", "skip"])
        .default("fail"),
    )
    .addOption(
      new Option(
        "--commands <mode>",
        "command records in JSON input (fence, trim, e.g. from svc read): skip (default, with a note) or replay (fences only: a trim's sequence number belongs to another stream, so it is never replayed)",
      )
        .choices(["skip", "replay"])
        .default("skip"),
    );
  addConditionOptions(cmd);
  cmd.action(
    handler<Flags>(async (ctx, [arg, ...words], f) => {
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
    }),
  );
  return examples(cmd, [
    "echo hello | svc append svc://my-basin-01/events",
    "svc append svc://my-basin-01/events hello world          # one record: hello world",
    "svc append svc://my-basin-01/events --body one --body two",
    "svc append svc://my-basin-01/events -i events.ndjson --format json",
    "svc read svc://a-basin-01/src --from-beginning -e --format json-base64 | svc append svc://b-basin-01/copy --format json-base64",
    "svc append svc://my-basin-01/blobs --format binary -i image.png -H content-type=image/png",
    "svc append svc://my-basin-01/events -m auto -F writer-1 --acks ndjson < lines.txt",
  ]);
}

function perSecond(text: string, flag: string, size: boolean): number {
  const t = text.replace(/\/s$/, "");
  const n = size ? parseSize(t, flag) : parseCount(t, flag);
  if (n === 0) throw usageError(`${flag} must be above 0`);
  return n;
}

/** `g.typed`: the input is typed at a terminal, so each acked batch gets a line instead of a live line. */
export function appendPlan(f: Flags, g: { verbose?: boolean; json?: boolean; typed?: boolean } = {}): AppendPlan {
  let format = parseFormatName(f.format);
  if (f.whole) {
    if (f.format !== "text" && format !== "binary") throw usageError("--whole is --format binary; drop --format");
    format = "binary";
  }
  if ((f.delimiter !== undefined || f.null) && format !== "text")
    throw usageError("-d/--delimiter and -0/--null apply to --format text only");
  if (f.delimiter !== undefined && f.null) throw usageError("use either -d/--delimiter or -0/--null");
  if (f.inputTemplate !== undefined && format !== "text")
    throw usageError("--input-template reads text lines; drop --format");
  const delimiter = f.null ? Buffer.from([0]) : f.delimiter !== undefined ? parseDelimiter(f.delimiter) : undefined;
  if (delimiter?.length === 0) throw usageError("the delimiter must not be empty");
  const ts = f.timestamp;
  const fixedTs = ts === undefined || ts.trim() === "now" ? undefined : parseTimePoint(ts, "--timestamp");
  const maxRecords = parseCount(f.maxBatchRecords, "--max-batch-records", LIMITS.maxBatchRecords);
  const maxBytes = parseSize(f.maxBatchBytes, "--max-batch-bytes", LIMITS.maxBatchBytes);
  if (maxRecords === 0 || maxBytes === 0) throw usageError("--max-batch-records and --max-batch-bytes must be above 0");
  const inflight = parseSize(f.maxInflightBytes, "--max-inflight-bytes");
  if (inflight < maxBytes) throw usageError("--max-inflight-bytes must be at least --max-batch-bytes");
  const plan: AppendPlan = {
    input: {
      files: f.input,
      format,
      invalidUtf8: f.invalidUtf8,
      headers: f.header.map(parseHeaderFlag),
      ...(delimiter ? { delimiter } : {}),
      ...(ts === undefined ? {} : { timestamp: fixedTs === undefined ? () => Date.now() : () => fixedTs }),
      ...(f.inputTemplate !== undefined ? { template: compileInputTemplate(f.inputTemplate) } : {}),
      ...(f.maxRecords !== undefined ? { maxRecords: parseCount(f.maxRecords, "--max-records") } : {}),
    },
    onError: f.onError,
    batch: { lingerMs: parseMillis(f.linger), maxRecords, maxBytes },
    conds: parseConditions(f),
    // Compression, --timeout and --retries reach the appender through the client.
    appender: {
      transport: f.transport ?? "session",
      unaryForOneBatch: f.transport === undefined && f.ackTimeout === undefined,
      maxInflightBytes: inflight,
      ...(f.ackTimeout !== undefined ? { ackTimeoutMs: parseMillis(f.ackTimeout) } : {}),
      onReconnect: () => undefined,
    },
    acks: f.acks ?? (g.json ? "none" : g.verbose || g.typed ? "text" : "progress"),
    json: g.json === true,
    commands: f.commands,
    dryRun: f.dryRun === true,
    atomic: f.atomic === true,
  };
  if (f.rate !== undefined) plan.rate = perSecond(f.rate, "--rate", false);
  if (f.rateBytes !== undefined) plan.rateBytes = perSecond(f.rateBytes, "--rate-bytes", true);
  if (f.input.filter((i) => i === "-").length > 1) throw usageError("stdin (-) can be read only once");
  if (f.body.length > 0) {
    if (f.input.length > 0) throw usageError("records come either from --body (or words after the URI) or from -i");
    if (format === "binary") throw usageError("--body is a text or JSON record; drop --whole/--format binary");
    plan.input.bodies = f.body;
  }
  return plan;
}
