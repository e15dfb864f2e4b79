/**
 * THE spec grammar (docs/specs.md), read alike by `svc apply`/`svc diff` and by
 * `svc lite --init-file`: JSON with `basins[]`, each `{name, scope?, config?, streams?}`, each
 * stream `{name, config?}`, and an optional `prune` scope (apply's alone). Unknown fields are
 * rejected with their JSON path; durations are the one grammar of rules/durations.ts (or
 * seconds as numbers); `retention_policy` may be `"infinite"`. Parsed into flat field maps
 * (`default_stream_config.timestamping.mode` → value): what the spec sets, and nothing else.
 */
import { clientError } from "../errors.js";
import { STORAGE_CLASSES, STREAM_CIPHERS, SVC_SCOPE, TIMESTAMPING_MODES } from "../types.js";
import { readDuration } from "./durations.js";
import { badName } from "./names.js";

/** The fields a stream's config may have in a spec (a basin's `default_stream_config` too). */
const STREAM_SPEC_KEYS = ["storage_class", "retention_policy", "timestamping", "delete_on_empty"] as const;
/** The fields a basin's config may have in a spec. */
const BASIN_SPEC_KEYS = [
  "default_stream_config",
  "create_stream_on_append",
  "create_stream_on_read",
  "stream_cipher",
] as const;

export type FlatValue = string | number | boolean | null;
export type Flat = Record<string, FlatValue>;

/** A stream config's five fields, flat (a basin's defaults are these under `default_stream_config.`). */
export const STREAM_FIELDS = [
  "storage_class",
  "retention_policy",
  "timestamping.mode",
  "timestamping.uncapped",
  "delete_on_empty.min_age_secs",
] as const;

function wireValue(key: string, v: FlatValue): unknown {
  if (v === null) return null;
  if (key.endsWith("retention_policy")) return v === "infinite" ? { infinite: {} } : { age: v };
  return v;
}

/**
 * Flat fields → nested object (`a.b.c` → {a: {b: {c}}}), nulls kept (they reset). With
 * `wire` (the default) retention becomes its wire shape ({age} or {infinite: {}}).
 */
export function unflatten(fields: Flat, wire = true): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(fields)) {
    const parts = key.split(".");
    let t = out;
    for (const p of parts.slice(0, -1)) {
      t[p] ??= {};
      t = t[p] as Record<string, unknown>;
    }
    t[parts.at(-1) ?? key] = wire ? wireValue(key, v) : v;
  }
  return out;
}

export interface StreamSpec {
  name: string;
  /** Only the fields the spec sets. */
  fields: Flat;
}

export interface BasinSpec {
  name: string;
  scope?: string;
  fields: Flat;
  streams: StreamSpec[];
}

/**
 * What `--prune` may delete beyond the streams of the basins the spec names: basins whose
 * names start with one of these prefixes (`""` = every basin). No scope, no basin is pruned.
 */
interface PruneScope {
  basinPrefixes: string[];
}

export interface Spec {
  basins: BasinSpec[];
  prune?: PruneScope;
}

type Obj = Record<string, unknown>;

function fail(where: string, message: string): never {
  throw clientError("bad_input", `${where}: ${message}`);
}

function obj(v: unknown, where: string, allowed: readonly string[]): Obj {
  if (typeof v !== "object" || v === null || Array.isArray(v)) fail(where, "must be an object");
  for (const k of Object.keys(v))
    if (!allowed.includes(k)) fail(where, `unknown field ${JSON.stringify(k)} (allowed: ${allowed.join(", ")})`);
  return v as Obj;
}

function choice(v: unknown, where: string, choices: readonly string[]): string {
  if (typeof v !== "string" || !choices.includes(v)) fail(where, `must be one of ${choices.join(", ")}`);
  return v;
}

function bool(v: unknown, where: string): boolean {
  if (typeof v !== "boolean") fail(where, "must be true or false");
  return v;
}

function secs(v: unknown, where: string): number {
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return v;
  const r = typeof v === "string" ? readDuration(v) : { problem: "shape" as const };
  if ("ms" in r) {
    if (r.ms % 1000 !== 0) fail(where, `duration ${JSON.stringify(v)} must be a whole number of seconds`);
    return r.ms / 1000;
  }
  if (r.problem === "unit") fail(where, `unknown unit in ${JSON.stringify(r.part)} (e.g. 30s, 5m, 2h 30m, 1d, 1w)`);
  if (r.problem === "too-large") fail(where, `duration ${JSON.stringify(v)} is too large`);
  fail(where, 'must be a duration such as "7d" or a number of seconds');
}

/** Stream config fields, flattened under `prefix`. */
function streamFields(v: unknown, where: string, prefix: string, out: Flat): void {
  if (v === undefined || v === null) return;
  const c = obj(v, where, STREAM_SPEC_KEYS);
  if (c.storage_class != null)
    out[`${prefix}storage_class`] = choice(c.storage_class, `${where}.storage_class`, STORAGE_CLASSES);
  if (c.retention_policy != null) {
    const r = c.retention_policy;
    if (r === "infinite") out[`${prefix}retention_policy`] = "infinite";
    else {
      const s = secs(r, `${where}.retention_policy`);
      if (s === 0) fail(`${where}.retention_policy`, 'must be greater than zero (or "infinite")');
      out[`${prefix}retention_policy`] = s;
    }
  }
  if (c.timestamping != null) {
    const t = obj(c.timestamping, `${where}.timestamping`, ["mode", "uncapped"]);
    if (t.mode != null)
      out[`${prefix}timestamping.mode`] = choice(t.mode, `${where}.timestamping.mode`, TIMESTAMPING_MODES);
    if (t.uncapped != null) out[`${prefix}timestamping.uncapped`] = bool(t.uncapped, `${where}.timestamping.uncapped`);
  }
  if (c.delete_on_empty != null) {
    const d = obj(c.delete_on_empty, `${where}.delete_on_empty`, ["min_age", "min_age_secs"]);
    const age = d.min_age ?? d.min_age_secs;
    if (age != null) out[`${prefix}delete_on_empty.min_age_secs`] = secs(age, `${where}.delete_on_empty.min_age`);
  }
}

function basinFields(v: unknown, where: string): Flat {
  const out: Flat = {};
  if (v === undefined || v === null) return out;
  const c = obj(v, where, BASIN_SPEC_KEYS);
  streamFields(c.default_stream_config, `${where}.default_stream_config`, "default_stream_config.", out);
  if (c.create_stream_on_append != null)
    out.create_stream_on_append = bool(c.create_stream_on_append, `${where}.create_stream_on_append`);
  if (c.create_stream_on_read != null)
    out.create_stream_on_read = bool(c.create_stream_on_read, `${where}.create_stream_on_read`);
  if (c.stream_cipher != null) out.stream_cipher = choice(c.stream_cipher, `${where}.stream_cipher`, STREAM_CIPHERS);
  return out;
}

export function parseSpec(doc: unknown, source: string): Spec {
  const top = obj(doc, source, ["$schema", "basins", "prune"]);
  if (!Array.isArray(top.basins)) fail(`${source}: basins`, "must be an array");
  const seen = new Set<string>();
  const basins = top.basins.map((b, i): BasinSpec => {
    const where = `${source}: basins[${i}]`;
    const o = obj(b, where, ["name", "scope", "config", "streams"]);
    if (typeof o.name !== "string") fail(`${where}.name`, "must be a string");
    const problem = badName("basin", o.name);
    if (problem) fail(`${where}.name`, problem);
    if (seen.has(o.name)) fail(`${where}.name`, `basin ${o.name} appears twice`);
    seen.add(o.name);
    const spec: BasinSpec = { name: o.name, fields: basinFields(o.config, `${where}.config`), streams: [] };
    if (o.scope != null) spec.scope = choice(o.scope, `${where}.scope`, [SVC_SCOPE]);
    if (o.streams != null && !Array.isArray(o.streams)) fail(`${where}.streams`, "must be an array");
    const names = new Set<string>();
    spec.streams = ((o.streams as unknown[] | undefined) ?? []).map((s, j) => {
      const sw = `${where}.streams[${j}]`;
      const so = obj(s, sw, ["name", "config"]);
      if (typeof so.name !== "string") fail(`${sw}.name`, "must be a string");
      const p = badName("stream", so.name);
      if (p) fail(`${sw}.name`, p);
      if (names.has(so.name)) fail(`${sw}.name`, `stream ${so.name} appears twice`);
      names.add(so.name);
      const fields: Flat = {};
      streamFields(so.config, `${sw}.config`, "", fields);
      return { name: so.name, fields };
    });
    return spec;
  });
  const prune = top.prune == null ? undefined : parsePrune(top.prune, `${source}: prune`);
  return prune ? { basins, prune } : { basins };
}

function parsePrune(v: unknown, where: string): PruneScope {
  const o = obj(v, where, ["basin_prefixes"]);
  if (!Array.isArray(o.basin_prefixes) || o.basin_prefixes.some((p) => typeof p !== "string"))
    fail(`${where}.basin_prefixes`, "must be an array of strings");
  return { basinPrefixes: o.basin_prefixes as string[] };
}

/** Several files merged: basins by name must not repeat. */
export function mergeSpecs(specs: Spec[]): Spec {
  const seen = new Set<string>();
  const basins: BasinSpec[] = [];
  for (const s of specs) {
    for (const b of s.basins) {
      if (seen.has(b.name)) throw clientError("bad_input", `basin ${b.name} is defined in more than one spec file`);
      seen.add(b.name);
      basins.push(b);
    }
  }
  const prefixes = specs.flatMap((s) => s.prune?.basinPrefixes ?? []);
  return specs.some((s) => s.prune) ? { basins, prune: { basinPrefixes: [...new Set(prefixes)] } } : { basins };
}
