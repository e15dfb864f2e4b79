/**
 * Resource-config flags shared by basin and stream commands (protocol.md §3.1, §3.2) and
 * their translation into wire config objects. Booleans come in pairs (`--x` / `--no-x`) so a
 * flag never swallows the positional argument after it; an absent flag leaves a field unset.
 */

import { parseDurationSecs } from "../format/duration.js";
import type { BasinConfig, RetentionPolicy, StreamCipher, StreamConfig } from "../types.js";
import { STORAGE_CLASSES, STREAM_CIPHERS, TIMESTAMPING_MODES } from "../types.js";
import { usageError } from "./failure.js";
import { choice, type FlagValues, flagList, pair, valueFlag } from "./flags/declare.js";

/** A stream's config flags; `what` starts each help (`default for new streams: `, for a basin's). */
export function streamConfigFlags(what = "") {
  return flagList(
    choice("--storage-class <class>", `${what}storage class`, STORAGE_CLASSES),
    valueFlag("--retention <dur|infinite>", `${what}retention, e.g. 7d, 12h, infinite`, (raw) => parseRetention(raw)),
    valueFlag("--retention-policy <dur|infinite>", undefined, (raw) => parseRetention(raw)),
    choice("--timestamping-mode <mode>", `${what}timestamping mode`, TIMESTAMPING_MODES),
    ...pair(
      "--timestamping-uncapped",
      `${what}keep client timestamps later than the arrival time`,
      `${what}cap client timestamps at the arrival time`,
    ),
    valueFlag(
      "--delete-on-empty-min-age <dur>",
      `${what}delete the stream once empty for this long (0 disables)`,
      (raw) => parseDurationSecs(raw),
    ),
  );
}

export const BASIN_CONFIG_FLAGS = flagList(
  ...streamConfigFlags("default for new streams: "),
  ...pair("--create-stream-on-append", "create missing streams on append", "do not create missing streams on append"),
  ...pair(
    "--create-stream-on-read",
    "create missing streams on read and check-tail",
    "do not create missing streams on read",
  ),
  choice("--stream-cipher <cipher>", "cipher for new streams (servers with encryption only)", STREAM_CIPHERS),
);

type StreamConfigFlags = FlagValues<ReturnType<typeof streamConfigFlags>>;
type BasinConfigFlags = FlagValues<typeof BASIN_CONFIG_FLAGS>;

function parseRetention(text: string): RetentionPolicy {
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
  if (f.storageClass !== undefined) c.storage_class = f.storageClass;
  if (f.retention !== undefined && f.retentionPolicy !== undefined)
    throw usageError("give either --retention or --retention-policy, not both");
  const retention = f.retention ?? f.retentionPolicy;
  if (retention !== undefined) c.retention_policy = retention;
  if (f.timestampingMode !== undefined || f.timestampingUncapped !== undefined) {
    c.timestamping = {};
    if (f.timestampingMode !== undefined) c.timestamping.mode = f.timestampingMode;
    if (f.timestampingUncapped !== undefined) c.timestamping.uncapped = f.timestampingUncapped;
  }
  if (f.deleteOnEmptyMinAge !== undefined) c.delete_on_empty = { min_age_secs: f.deleteOnEmptyMinAge };
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
  if (f.streamCipher !== undefined) c.stream_cipher = f.streamCipher;
  return Object.keys(c).length > 0 ? c : undefined;
}
