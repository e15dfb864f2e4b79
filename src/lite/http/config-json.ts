/**
 * JSON ↔ configuration (protocol.md §3.1, §3.2, §3.4). Shape errors (wrong type, unknown
 * enum value, negative number) are 400 bad_json; semantic errors (`age: 0`) are 422
 * invalid, reported only if the whole body parsed. Unknown fields are ignored.
 */
import { type SvcError, serverError } from "../../errors.js";
import type { RetentionPolicy } from "../../types.js";
import { STORAGE_CLASSES, STREAM_CIPHERS, SVC_SCOPE, TIMESTAMPING_MODES } from "../../types.js";
import type {
  BasinMeta,
  PartialStreamConfig,
  ResolvedStreamConfig,
  StoredBasinConfig,
  StreamMeta,
} from "../storage/types.js";
import { type BasinReconfig, resolveStreamConfig, type StreamReconfig } from "../store/stream-config.js";

type Json = Record<string, unknown>;

/** Collects the first semantic (422) problem while shape errors throw at once. */
export class ConfigParse {
  invalid: SvcError | undefined;
  fail(message: string): never {
    throw serverError("bad_json", message);
  }
  semantic(message: string): void {
    this.invalid ??= serverError("invalid", message);
  }
  finish(): void {
    if (this.invalid) throw this.invalid;
  }
}

export function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function object(p: ConfigParse, v: unknown, where: string): Json | null | undefined {
  if (v === undefined || v === null) return v;
  if (!isObject(v)) p.fail(`${where} must be an object`);
  return v;
}

function bool(p: ConfigParse, v: unknown, where: string): boolean | null | undefined {
  if (v === undefined || v === null || typeof v === "boolean") return v;
  return p.fail(`${where} must be a boolean`);
}

function u64(p: ConfigParse, v: unknown, where: string): number | null | undefined {
  if (v === undefined || v === null) return v;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || !Number.isSafeInteger(v))
    p.fail(`${where} must be a non-negative integer`);
  return v;
}

function oneOf<T extends string>(
  p: ConfigParse,
  v: unknown,
  allowed: readonly T[],
  where: string,
): T | null | undefined {
  if (v === undefined || v === null) return v;
  if (typeof v !== "string" || !allowed.includes(v as T)) p.fail(`${where} must be one of ${allowed.join(", ")}`);
  return v as T;
}

function retention(p: ConfigParse, v: unknown): RetentionPolicy | null | undefined {
  const o = object(p, v, "retention_policy");
  if (!o) return o;
  const keys = Object.keys(o);
  if (keys.length !== 1) p.fail("retention_policy must have exactly one of `age` or `infinite`");
  if (keys[0] === "infinite") {
    if (!isObject(o.infinite)) p.fail("retention_policy.infinite must be an object");
    return { infinite: {} };
  }
  if (keys[0] !== "age") p.fail("retention_policy must have exactly one of `age` or `infinite`");
  const age = u64(p, o.age, "retention_policy.age");
  if (age === null || age === undefined) return p.fail("retention_policy.age must be a positive integer");
  if (age === 0) p.semantic("retention_policy.age must be greater than 0");
  return { age };
}

/** A StreamConfig or StreamReconfiguration body: null stays null (reset / unset). */
export function parseStreamReconfig(p: ConfigParse, v: unknown, where = "config"): StreamReconfig {
  const o = object(p, v, where) ?? {};
  const r: StreamReconfig = {};
  const sc = oneOf(p, o.storage_class, STORAGE_CLASSES, "storage_class");
  if (o.storage_class !== undefined) r.storage_class = sc ?? null;
  if (o.retention_policy !== undefined) r.retention_policy = retention(p, o.retention_policy) ?? null;
  if (o.timestamping !== undefined) {
    const t = object(p, o.timestamping, "timestamping");
    if (t === null || t === undefined) r.timestamping = null;
    else {
      r.timestamping = {};
      if (t.mode !== undefined) r.timestamping.mode = oneOf(p, t.mode, TIMESTAMPING_MODES, "timestamping.mode") ?? null;
      if (t.uncapped !== undefined) r.timestamping.uncapped = bool(p, t.uncapped, "timestamping.uncapped") ?? null;
    }
  }
  if (o.delete_on_empty !== undefined) {
    const d = object(p, o.delete_on_empty, "delete_on_empty");
    if (d === null || d === undefined) r.delete_on_empty = null;
    else {
      r.delete_on_empty = {};
      if (d.min_age_secs !== undefined)
        r.delete_on_empty.min_age_secs = u64(p, d.min_age_secs, "delete_on_empty.min_age_secs") ?? null;
    }
  }
  return r;
}

/** A full StreamConfig as requested: null means "not set", so it becomes absent. */
export function toPartial(r: StreamReconfig): PartialStreamConfig {
  const out: PartialStreamConfig = {};
  if (r.storage_class) out.storage_class = r.storage_class;
  if (r.retention_policy) out.retention_policy = r.retention_policy;
  if (r.timestamping) {
    const t: PartialStreamConfig["timestamping"] = {};
    if (r.timestamping.mode) t.mode = r.timestamping.mode;
    if (typeof r.timestamping.uncapped === "boolean") t.uncapped = r.timestamping.uncapped;
    if (Object.keys(t).length > 0) out.timestamping = t;
  }
  if (r.delete_on_empty && typeof r.delete_on_empty.min_age_secs === "number")
    out.delete_on_empty = { min_age_secs: r.delete_on_empty.min_age_secs };
  return out;
}

export function parseBasinReconfig(p: ConfigParse, v: unknown): BasinReconfig {
  const o = object(p, v, "config") ?? {};
  const r: BasinReconfig = {};
  if (o.default_stream_config !== undefined) {
    r.default_stream_config =
      o.default_stream_config === null
        ? null
        : parseStreamReconfig(p, o.default_stream_config, "default_stream_config");
  }
  if (o.create_stream_on_append !== undefined)
    r.create_stream_on_append = bool(p, o.create_stream_on_append, "create_stream_on_append") ?? null;
  if (o.create_stream_on_read !== undefined)
    r.create_stream_on_read = bool(p, o.create_stream_on_read, "create_stream_on_read") ?? null;
  if (o.stream_cipher !== undefined)
    r.stream_cipher = oneOf(p, o.stream_cipher, STREAM_CIPHERS, "stream_cipher") ?? null;
  return r;
}

/** A full BasinConfig (create): unset flags are false, unset defaults null. */
export function parseBasinConfig(p: ConfigParse, v: unknown): StoredBasinConfig {
  const r = parseBasinReconfig(p, v);
  const defaults = r.default_stream_config ? toPartial(r.default_stream_config) : null;
  const config: StoredBasinConfig = {
    default_stream_config: defaults && Object.keys(defaults).length > 0 ? defaults : null,
    create_stream_on_append: r.create_stream_on_append ?? false,
    create_stream_on_read: r.create_stream_on_read ?? false,
  };
  if (r.stream_cipher) config.stream_cipher = r.stream_cipher;
  return config;
}

export function streamConfigJson(c: ResolvedStreamConfig): Json {
  return {
    storage_class: c.storage_class,
    retention_policy: c.retention_policy,
    timestamping: { mode: c.timestamping.mode, uncapped: c.timestamping.uncapped },
    delete_on_empty: { min_age_secs: c.delete_on_empty.min_age_secs },
  };
}

/**
 * Defaults shown as in effect: `default_stream_config` is always the full config a
 * stream created now would get (the basin's defaults over the system's), as the newest
 * clients expect; never null.
 */
export function basinConfigJson(c: StoredBasinConfig): Json {
  return {
    default_stream_config: streamConfigJson(resolveStreamConfig({}, c.default_stream_config)),
    stream_cipher: c.stream_cipher ?? null,
    create_stream_on_append: c.create_stream_on_append,
    create_stream_on_read: c.create_stream_on_read,
  };
}

/** §3.4: the union of the seed-era and newest BasinInfo shapes. */
export function basinInfoJson(b: BasinMeta, location: string, scope: string = SVC_SCOPE): Json {
  return {
    name: b.name,
    scope,
    location,
    state: b.deletedAt === null ? "active" : "deleting",
    created_at: b.createdAt,
    deleted_at: b.deletedAt,
  };
}

export function streamInfoJson(s: StreamMeta): Json {
  return { name: s.name, created_at: s.createdAt, deleted_at: s.deletedAt, cipher: s.cipher ?? null };
}
