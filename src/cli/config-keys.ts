/**
 * The keys of the config file (top level or `[profiles.NAME]`), each with its validator and its
 * default. The flag that overrides one is the global flag of the same name (`timeout`:
 * `--timeout`, global-flags.ts), the environment variable the one env-vars.ts names for it.
 * `access_token` is a secret: never printed.
 */

import { parseDuration } from "../format/duration.js";
import { didYouMean } from "../format/suggest.js";
import { DIALECTS } from "../types.js";
import { usageError } from "./failure.js";
import type { TomlValue } from "./toml.js";

interface KeySpec {
  secret?: boolean;
  describe: string;
  /** Validates and normalizes a value given as text (CLI, env) or as a TOML value. */
  parse: (v: TomlValue, key: string) => TomlValue;
  /** The value when no flag, variable or file sets it (the endpoints have none: a local svc lite stands in). */
  default?: string | number | boolean;
}

/** A token goes into an Authorization header: printable ASCII without spaces (never echoed). */
function bearer(token: string, key: string): string {
  if (/[^\x21-\x7e]/.test(token))
    throw usageError(
      `${key} must be printable ASCII without spaces or line breaks (it goes into an Authorization header)`,
    );
  return token;
}

function text(v: TomlValue, key: string): string {
  if (typeof v !== "string") throw usageError(`${key} must be a string`);
  return v;
}

/** One URL, or a comma-separated list of them: nodes that serve the same basins (failover). */
function endpoint(v: TomlValue, key: string): string {
  const all = text(v, key).trim();
  const list = all
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (list.length === 0)
    throw usageError(`${key} must be a URL such as http://127.0.0.1:4243 (got ${JSON.stringify(all)})`);
  for (const s of list) {
    let u: URL;
    try {
      u = new URL(s.replaceAll("{basin}", "basin"));
    } catch {
      throw usageError(
        `${key} must be a URL such as http://127.0.0.1:4243, or several separated by commas (got ${JSON.stringify(s)})`,
      );
    }
    if (u.protocol !== "http:" && u.protocol !== "https:")
      throw usageError(`${key} must use http or https (got ${JSON.stringify(s)})`);
    if (list.length > 1 && s.includes("{basin}"))
      throw usageError(`${key}: {basin} host routing takes one URL, not a list (got ${JSON.stringify(all)})`);
  }
  return list.join(",");
}

function parseBool(v: TomlValue, key: string): boolean {
  if (typeof v === "boolean") return v;
  const s = String(v).trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(s)) return true;
  if (["0", "false", "no", "off", ""].includes(s)) return false;
  throw usageError(`${key} must be true or false (got ${JSON.stringify(v)})`);
}

export const COMPRESSIONS = ["none", "gzip", "zstd"] as const;
export type CompressionSetting = (typeof COMPRESSIONS)[number];

export const CONFIG_KEYS: Record<string, KeySpec> = {
  account_endpoint: { describe: "account (management) endpoint URL", parse: endpoint },
  basin_endpoint: {
    describe: "basin (data plane) endpoint URL; may contain {basin}",
    parse: endpoint,
  },
  access_token: {
    secret: true,
    describe: "bearer token (stored 0600; never printed)",
    parse: (v, k) => bearer(text(v, k).trim(), k),
  },
  compression: {
    describe: "none | gzip | zstd",
    default: "none",
    parse: (v, k) => {
      const s = text(v, k).trim().toLowerCase();
      if (!(COMPRESSIONS as readonly string[]).includes(s))
        throw usageError(`${k} must be one of ${COMPRESSIONS.join(", ")} (got ${JSON.stringify(v)})`);
      return s;
    },
  },
  insecure: { describe: "skip TLS certificate verification (true|false)", parse: parseBool, default: false },
  dialect: {
    describe: "svc | s2: the header names requests use (s2 for S2-compatible servers)",
    default: "svc",
    parse: (v, k) => {
      const s = text(v, k).trim().toLowerCase();
      if (!(DIALECTS as readonly string[]).includes(s))
        throw usageError(`${k} must be one of ${DIALECTS.join(", ")} (got ${JSON.stringify(v)})`);
      return s;
    },
  },
  timeout: {
    describe: "per-request timeout, e.g. 30s",
    default: "30s",
    parse: (v, k) => {
      const s = typeof v === "number" || /^\s*\d+\s*$/.test(String(v)) ? `${String(v).trim()}s` : text(v, k);
      let ms: number;
      try {
        ms = parseDuration(s);
      } catch (e) {
        throw usageError(`${k}: ${(e as Error).message}`);
      }
      if (ms <= 0) throw usageError(`${k} must be greater than zero`);
      return s;
    },
  },
  retries: {
    describe: "retries after the first attempt, e.g. 2",
    default: 2,
    parse: (v, k) => {
      const n = typeof v === "number" ? v : Number(String(v).trim());
      if (!Number.isInteger(n) || n < 0 || n > 100)
        throw usageError(`${k} must be an integer from 0 to 100 (got ${JSON.stringify(v)})`);
      return n;
    },
  },
};

/**
 * S2's names of svc's keys, as S2's CLI writes them in its own config file (`s2 config set
 * ssl_no_verify true`): `svc config get/set/unset` take them for svc's key, and a config file
 * that holds one where svc's key is absent is read as svc's (docs/s2.md).
 */
export const S2_CONFIG_KEYS: Readonly<Record<string, string>> = { ssl_no_verify: "insecure" };

/** svc's name of a key typed in S2's spelling (`ssl_no_verify` → `insecure`); other keys as they are. */
export function canonicalKey(key: string): string {
  return Object.hasOwn(S2_CONFIG_KEYS, key) ? S2_CONFIG_KEYS[key]! : key;
}

export function keySpec(key: string): KeySpec {
  const spec = CONFIG_KEYS[key];
  if (!spec)
    throw usageError(
      `unknown config key ${JSON.stringify(key)}${didYouMean(key, Object.keys(CONFIG_KEYS))} (known keys: ${Object.keys(CONFIG_KEYS).join(", ")})`,
    );
  return spec;
}
