/**
 * Configs as aligned `key  value` lines for humans (stdout of `basin get`, `stream get`,
 * reconfigure). Nested objects become dotted keys; durations are humantime (svc's `2w`, or
 * with `durations: "s2"` S2's `14d`, for the commands spelled S2's way); unset is `-`.
 */
import { formatSeconds, formatSecondsInDays } from "./duration.js";

type Json = Record<string, unknown>;

function isObj(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** How durations are written: svc's way (`2w`) or S2's (`14d`). */
export type DurationStyle = "svc" | "s2";

function render(key: string, v: unknown, durations: DurationStyle): string {
  const seconds = durations === "s2" ? formatSecondsInDays : formatSeconds;
  if (v === null || v === undefined) return "-";
  if (key.endsWith("retention_policy") && isObj(v)) {
    if ("infinite" in v) return "infinite";
    if (typeof v.age === "number") return seconds(v.age);
  }
  if (key.endsWith("min_age_secs") && typeof v === "number") return v === 0 ? "0s (disabled)" : seconds(v);
  return typeof v === "string" ? v : JSON.stringify(v);
}

function flattenConfig(obj: Json, durations: DurationStyle, prefix = ""): [string, string][] {
  const rows: [string, string][] = [];
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (isObj(v) && !key.endsWith("retention_policy")) {
      const inner = flattenConfig(v, durations, key);
      if (inner.length === 0) rows.push([key, "-"]);
      else rows.push(...inner);
    } else {
      rows.push([key, render(key, v, durations)]);
    }
  }
  return rows;
}

export function configLines(obj: Json, durations: DurationStyle = "svc"): string[] {
  const rows = flattenConfig(obj, durations);
  const width = Math.max(0, ...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`);
}
