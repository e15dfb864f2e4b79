/**
 * Resource-config flags shared by basin and stream commands (protocol.md §3.1, §3.2) and
 * their translation into wire config objects. Booleans come in pairs (`--x` / `--no-x`) so a
 * flag never swallows the positional argument after it; an absent flag leaves a field unset.
 */
import { Option, type Command } from "commander";
import type { StreamCipher } from "../types.js";
import { parseDurationSecs } from "../format/duration.js";
import type { BasinConfig, RetentionPolicy, StorageClass, StreamConfig, TimestampingMode } from "../types.js";
import { usageError } from "./failure.js";

export const STORAGE_CLASSES = ["standard", "express"];
export const TIMESTAMPING_MODES = ["client-prefer", "client-require", "arrival"];
export const STREAM_CIPHERS = ["aegis-256", "aes-256-gcm"];

export interface StreamConfigFlags {
  storageClass?: string;
  retention?: string;
  retentionPolicy?: string;
  timestampingMode?: string;
  timestampingUncapped?: boolean;
  deleteOnEmptyMinAge?: string;
}

export interface BasinConfigFlags extends StreamConfigFlags {
  createStreamOnAppend?: boolean;
  createStreamOnRead?: boolean;
  streamCipher?: string;
}

export function addStreamConfigOptions(cmd: Command, prefix = ""): Command {
  const what = prefix ? "default for new streams: " : "";
  return cmd
    .addOption(new Option("--storage-class <class>", `${what}storage class`).choices(STORAGE_CLASSES))
    .addOption(new Option("--retention <dur|infinite>", `${what}retention, e.g. 7d, 12h, infinite`))
    .addOption(new Option("--retention-policy <dur|infinite>").hideHelp())
    .addOption(new Option("--timestamping-mode <mode>", `${what}timestamping mode`).choices(TIMESTAMPING_MODES))
    .addOption(new Option("--timestamping-uncapped", `${what}keep client timestamps later than the arrival time`))
    .addOption(new Option("--no-timestamping-uncapped", `${what}cap client timestamps at the arrival time`))
    .addOption(
      new Option("--delete-on-empty-min-age <dur>", `${what}delete the stream once empty for this long (0 disables)`),
    );
}

export function addBasinConfigOptions(cmd: Command): Command {
  addStreamConfigOptions(cmd, "default");
  return cmd
    .addOption(new Option("--create-stream-on-append", "create missing streams on append"))
    .addOption(new Option("--no-create-stream-on-append", "do not create missing streams on append"))
    .addOption(new Option("--create-stream-on-read", "create missing streams on read and check-tail"))
    .addOption(new Option("--no-create-stream-on-read", "do not create missing streams on read"))
    .addOption(
      new Option("--stream-cipher <cipher>", "cipher for new streams (servers with encryption only)").choices(
        STREAM_CIPHERS,
      ),
    );
}

export function parseRetention(text: string): RetentionPolicy {
  const s = text.trim().toLowerCase();
  if (s === "infinite" || s === "inf" || s === "forever") return { infinite: {} };
  const secs = parseDurationSecs(text);
  if (secs <= 0)
    throw usageError(
      `retention must be greater than zero (got ${JSON.stringify(text)}); use \`infinite\` to keep records until trimmed`,
    );
  return { age: secs };
}

/** The stream config fields the flags set; undefined when none is given. */
export function streamConfigFromFlags(f: StreamConfigFlags): StreamConfig | undefined {
  const c: StreamConfig = {};
  if (f.storageClass !== undefined) c.storage_class = f.storageClass as StorageClass;
  if (f.retention !== undefined && f.retentionPolicy !== undefined)
    throw usageError("give either --retention or --retention-policy, not both");
  const retention = f.retention ?? f.retentionPolicy;
  if (retention !== undefined) c.retention_policy = parseRetention(retention);
  if (f.timestampingMode !== undefined || f.timestampingUncapped !== undefined) {
    c.timestamping = {};
    if (f.timestampingMode !== undefined) c.timestamping.mode = f.timestampingMode as TimestampingMode;
    if (f.timestampingUncapped !== undefined) c.timestamping.uncapped = f.timestampingUncapped;
  }
  if (f.deleteOnEmptyMinAge !== undefined)
    c.delete_on_empty = { min_age_secs: parseDurationSecs(f.deleteOnEmptyMinAge) };
  return Object.keys(c).length > 0 ? c : undefined;
}

/** The basin config fields the flags set; undefined when none is given. */
export function basinConfigFromFlags(
  f: BasinConfigFlags,
): (BasinConfig & { stream_cipher?: StreamCipher }) | undefined {
  const c: BasinConfig & { stream_cipher?: StreamCipher } = {};
  const defaults = streamConfigFromFlags(f);
  if (defaults) c.default_stream_config = defaults;
  if (f.createStreamOnAppend !== undefined) c.create_stream_on_append = f.createStreamOnAppend;
  if (f.createStreamOnRead !== undefined) c.create_stream_on_read = f.createStreamOnRead;
  if (f.streamCipher !== undefined) c.stream_cipher = f.streamCipher as StreamCipher;
  return Object.keys(c).length > 0 ? c : undefined;
}
