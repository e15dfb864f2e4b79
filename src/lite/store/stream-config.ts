/**
 * Stream and basin configuration as the store keeps it (protocol.md §3.1, §3.2).
 *
 * - A stream's config is RESOLVED at creation (B2): each field from the request, else the
 *   basin's `default_stream_config`, else the system default. Later basin changes do not
 *   touch existing streams.
 * - Reconfiguration is three-state per field: absent = keep, null = reset (to the basin
 *   default, then the system default), value = set. Nested objects merge per field.
 */
import type { RetentionPolicy, StorageClass, StreamCipher, TimestampingMode } from "../../types.js";
import { SYSTEM_STREAM_DEFAULTS as SYSTEM } from "../../types.js";
import type { PartialStreamConfig, ResolvedStreamConfig, StoredBasinConfig } from "../storage/types.js";

/** A reconfiguration: absent = keep, null = reset, value = set (per nested field too). */
export interface StreamReconfig {
  storage_class?: StorageClass | null;
  retention_policy?: RetentionPolicy | null;
  timestamping?: { mode?: TimestampingMode | null; uncapped?: boolean | null } | null;
  delete_on_empty?: { min_age_secs?: number | null } | null;
}

export interface BasinReconfig {
  default_stream_config?: StreamReconfig | null;
  create_stream_on_append?: boolean | null;
  create_stream_on_read?: boolean | null;
  stream_cipher?: StreamCipher | null;
}

export const SYSTEM_STREAM_DEFAULTS: ResolvedStreamConfig = {
  storage_class: SYSTEM.storageClass,
  retention_policy: { age: SYSTEM.retentionAgeSecs },
  timestamping: { mode: SYSTEM.timestampingMode, uncapped: SYSTEM.timestampingUncapped },
  delete_on_empty: { min_age_secs: SYSTEM.deleteOnEmptyMinAgeSecs },
};

export const DEFAULT_BASIN_CONFIG: StoredBasinConfig = {
  default_stream_config: null,
  create_stream_on_append: false,
  create_stream_on_read: false,
};

/** Resolves a requested partial config against basin defaults, then system defaults. */
export function resolveStreamConfig(
  requested: PartialStreamConfig,
  basinDefaults: PartialStreamConfig | null,
): ResolvedStreamConfig {
  const d = basinDefaults ?? {};
  const s = SYSTEM_STREAM_DEFAULTS;
  return {
    storage_class: requested.storage_class ?? d.storage_class ?? s.storage_class,
    retention_policy: requested.retention_policy ?? d.retention_policy ?? s.retention_policy,
    timestamping: {
      mode: requested.timestamping?.mode ?? d.timestamping?.mode ?? s.timestamping.mode,
      uncapped: requested.timestamping?.uncapped ?? d.timestamping?.uncapped ?? s.timestamping.uncapped,
    },
    delete_on_empty: {
      min_age_secs:
        requested.delete_on_empty?.min_age_secs ?? d.delete_on_empty?.min_age_secs ?? s.delete_on_empty.min_age_secs,
    },
  };
}

/** Applies a reconfiguration to a resolved stream config; null resets to the basin/system default. */
export function reconfigureStream(
  current: ResolvedStreamConfig,
  r: StreamReconfig,
  basinDefaults: PartialStreamConfig | null,
): ResolvedStreamConfig {
  const fallback = resolveStreamConfig({}, basinDefaults);
  const pick = <T>(value: T | null | undefined, keep: T, reset: T): T =>
    value === undefined ? keep : value === null ? reset : value;
  const ts = r.timestamping;
  const doe = r.delete_on_empty;
  return {
    storage_class: pick(r.storage_class, current.storage_class, fallback.storage_class),
    retention_policy: pick(r.retention_policy, current.retention_policy, fallback.retention_policy),
    timestamping:
      ts === undefined
        ? current.timestamping
        : ts === null
          ? fallback.timestamping
          : {
              mode: pick(ts.mode, current.timestamping.mode, fallback.timestamping.mode),
              uncapped: pick(ts.uncapped, current.timestamping.uncapped, fallback.timestamping.uncapped),
            },
    delete_on_empty:
      doe === undefined
        ? current.delete_on_empty
        : doe === null
          ? fallback.delete_on_empty
          : {
              min_age_secs: pick(
                doe.min_age_secs,
                current.delete_on_empty.min_age_secs,
                fallback.delete_on_empty.min_age_secs,
              ),
            },
  };
}

/** Applies a reconfiguration to a partial config (basin defaults): null unsets a field. */
function reconfigurePartial(current: PartialStreamConfig, r: StreamReconfig): PartialStreamConfig {
  const out: PartialStreamConfig = structuredClone(current);
  if (r.storage_class === null) delete out.storage_class;
  else if (r.storage_class !== undefined) out.storage_class = r.storage_class;
  if (r.retention_policy === null) delete out.retention_policy;
  else if (r.retention_policy !== undefined) out.retention_policy = r.retention_policy;
  if (r.timestamping === null) delete out.timestamping;
  else if (r.timestamping !== undefined) {
    const t = { ...out.timestamping };
    if (r.timestamping.mode === null) delete t.mode;
    else if (r.timestamping.mode !== undefined) t.mode = r.timestamping.mode;
    if (r.timestamping.uncapped === null) delete t.uncapped;
    else if (r.timestamping.uncapped !== undefined) t.uncapped = r.timestamping.uncapped;
    if (Object.keys(t).length > 0) out.timestamping = t;
    else delete out.timestamping;
  }
  if (r.delete_on_empty === null) delete out.delete_on_empty;
  else if (r.delete_on_empty !== undefined) {
    const d = { ...out.delete_on_empty };
    if (r.delete_on_empty.min_age_secs === null) delete d.min_age_secs;
    else if (r.delete_on_empty.min_age_secs !== undefined) d.min_age_secs = r.delete_on_empty.min_age_secs;
    if (Object.keys(d).length > 0) out.delete_on_empty = d;
    else delete out.delete_on_empty;
  }
  return out;
}

/** Applies a basin reconfiguration; null on the flags means "no change" (§3.1 recommendation). */
export function reconfigureBasin(current: StoredBasinConfig, r: BasinReconfig): StoredBasinConfig {
  let defaults = current.default_stream_config;
  if (r.default_stream_config === null) defaults = null;
  else if (r.default_stream_config !== undefined) {
    const merged = reconfigurePartial(defaults ?? {}, r.default_stream_config);
    defaults = Object.keys(merged).length > 0 ? merged : null;
  }
  const out: StoredBasinConfig = {
    default_stream_config: defaults,
    create_stream_on_append: r.create_stream_on_append ?? current.create_stream_on_append,
    create_stream_on_read: r.create_stream_on_read ?? current.create_stream_on_read,
  };
  const cipher = r.stream_cipher === undefined ? current.stream_cipher : r.stream_cipher;
  if (cipher) out.stream_cipher = cipher;
  return out;
}

/** Retention age in ms, or undefined for infinite retention. */
export function retentionMs(config: ResolvedStreamConfig): number | undefined {
  const p = config.retention_policy;
  return "age" in p ? p.age * 1000 : undefined;
}

/** Deterministic JSON (sorted keys) for comparisons and idempotency keys. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(",")}}`;
  }
  return JSON.stringify(v);
}
