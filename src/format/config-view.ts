/**
 * Configs as aligned `key  value` lines for humans (stdout of `basin get`, `stream get`,
 * reconfigure). Nested objects become dotted keys; durations are humantime; unset is `-`.
 */
import { formatSeconds } from "./duration.js";

type Json = Record<string, unknown>;

function isObj(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function render(key: string, v: unknown): string {
  if (v === null || v === undefined) return "-";
  if (key.endsWith("retention_policy") && isObj(v)) {
    if ("infinite" in v) return "infinite";
    if (typeof v.age === "number") return formatSeconds(v.age);
  }
  if (key.endsWith("min_age_secs") && typeof v === "number") return v === 0 ? "0s (disabled)" : formatSeconds(v);
  return typeof v === "string" ? v : JSON.stringify(v);
}

function flattenConfig(obj: Json, prefix = ""): [string, string][] {
  const rows: [string, string][] = [];
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (isObj(v) && !key.endsWith("retention_policy")) {
      const inner = flattenConfig(v, key);
      if (inner.length === 0) rows.push([key, "-"]);
      else rows.push(...inner);
    } else {
      rows.push([key, render(key, v)]);
    }
  }
  return rows;
}

export function configLines(obj: Json): string[] {
  const rows = flattenConfig(obj);
  const width = Math.max(0, ...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`);
}
