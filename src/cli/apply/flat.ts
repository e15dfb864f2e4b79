/**
 * Configs as flat field maps, so that desired and current state compare field by field.
 *
 * - Basin: `create_stream_on_append`, `create_stream_on_read`, `stream_cipher` and the
 *   `default_stream_config.*` fields; an omitted field means its default (false / unset;
 *   for the stream defaults, the system's: servers show defaults as in effect).
 * - Stream: the five stream fields, always resolved: spec value, else the basin's default
 *   from the spec, else the system default (protocol.md §3.2).
 */

import { type Flat, type FlatValue, STREAM_FIELDS } from "../../rules/spec.js";
import type { BasinConfig, StreamConfig } from "../../types.js";
import { SYSTEM_STREAM_DEFAULTS as SYSTEM } from "../../types.js";

const STREAM_KEYS = STREAM_FIELDS;
const BASIN_KEYS = [
  "create_stream_on_append",
  "create_stream_on_read",
  "stream_cipher",
  ...STREAM_KEYS.map((k) => `default_stream_config.${k}`),
];

const SYSTEM_STREAM_DEFAULTS: Flat = {
  storage_class: SYSTEM.storageClass,
  retention_policy: SYSTEM.retentionAgeSecs,
  "timestamping.mode": SYSTEM.timestampingMode,
  "timestamping.uncapped": SYSTEM.timestampingUncapped,
  "delete_on_empty.min_age_secs": SYSTEM.deleteOnEmptyMinAgeSecs,
};

const BASIN_DEFAULTS: Flat = { create_stream_on_append: false, create_stream_on_read: false };

function streamFlat(c: StreamConfig | null | undefined, prefix: string, out: Flat): void {
  out[`${prefix}storage_class`] = c?.storage_class ?? null;
  const r = c?.retention_policy;
  out[`${prefix}retention_policy`] = r == null ? null : "infinite" in r ? "infinite" : r.age;
  out[`${prefix}timestamping.mode`] = c?.timestamping?.mode ?? null;
  out[`${prefix}timestamping.uncapped`] = c?.timestamping?.uncapped ?? null;
  out[`${prefix}delete_on_empty.min_age_secs`] = c?.delete_on_empty?.min_age_secs ?? null;
}

/** A basin config from the server, flattened (absent = default). */
export function currentBasinFlat(c: BasinConfig & { stream_cipher?: string | null }): Flat {
  const out: Flat = {
    create_stream_on_append: c.create_stream_on_append ?? false,
    create_stream_on_read: c.create_stream_on_read ?? false,
    stream_cipher: c.stream_cipher ?? null,
  };
  streamFlat(c.default_stream_config, "default_stream_config.", out);
  for (const k of STREAM_KEYS) out[`default_stream_config.${k}`] ??= SYSTEM_STREAM_DEFAULTS[k]!;
  return out;
}

/** The desired basin: spec fields over defaults. */
export function desiredBasinFlat(fields: Flat): Flat {
  const out: Flat = {};
  for (const k of BASIN_KEYS)
    out[k] =
      fields[k] ?? BASIN_DEFAULTS[k] ?? SYSTEM_STREAM_DEFAULTS[k.replace(/^default_stream_config\./, "")] ?? null;
  return out;
}

/** A stream config from the server, resolved against system defaults (cloud omits defaults). */
export function currentStreamFlat(c: StreamConfig): Flat {
  const raw: Flat = {};
  streamFlat(c, "", raw);
  const out: Flat = {};
  for (const k of STREAM_KEYS) out[k] = raw[k] ?? SYSTEM_STREAM_DEFAULTS[k]!;
  return out;
}

/** The desired stream: spec, else the desired basin default, else the system default. */
export function desiredStreamFlat(fields: Flat, basinDesired: Flat): Flat {
  const out: Flat = {};
  for (const k of STREAM_KEYS)
    out[k] = fields[k] ?? basinDesired[`default_stream_config.${k}`] ?? SYSTEM_STREAM_DEFAULTS[k]!;
  return out;
}

export interface FieldChange {
  field: string;
  from: FlatValue;
  to: FlatValue;
}

export function diff(current: Flat, desired: Flat): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const [field, to] of Object.entries(desired)) {
    const from = current[field] ?? null;
    if (from !== to) changes.push({ field, from, to });
  }
  return changes;
}
