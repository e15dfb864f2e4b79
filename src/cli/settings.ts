/**
 * Effective settings: flag > environment > profile (`[profiles.NAME]`) > top level of the
 * config file > built-in default. Each value remembers where it came from, for hints and
 * `config list`. With no endpoint configured anywhere, svc talks to a local `svc lite` at its
 * default address and uses the root token that server keeps in its default data directory.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseDuration } from "../format/duration.js";
import { nearest } from "../format/suggest.js";
import { LOCAL_LITE_ENDPOINT, localLiteDataDir, ROOT_TOKEN_FILE } from "../local-lite.js";
import type { Dialect } from "../types.js";
import { CONFIG_KEYS, type CompressionSetting, S2_CONFIG_KEYS } from "./config-keys.js";
import { ENV_VARS, type EnvSetting, envValue, S2_ENV_VARS, s2EnvValue } from "./env-vars.js";
import { usageError } from "./failure.js";
import { keyOf } from "./flags/declare.js";
import type { GlobalFlags } from "./global-flags.js";
import type { TomlTable, TomlValue } from "./toml.js";

/** The global flags as the settings layer reads them: the setting `timeout` comes from `--timeout`. */
type SettingFlags = Partial<GlobalFlags>;

interface Sourced<T> {
  value: T;
  source: string;
}

export interface Settings {
  profile?: string;
  accountEndpoint: Sourced<string>;
  basinEndpoint: Sourced<string>;
  accessToken?: Sourced<string>;
  compression: Sourced<CompressionSetting>;
  insecure: Sourced<boolean>;
  timeoutMs: Sourced<number>;
  retries: Sourced<number>;
  /** Settings found and not used, and why (`S2_ACCESS_TOKEN is ignored: …`), for ping, config list and -v. */
  notes: string[];
  /** The header names requests use: svc's, or S2's for an S2-compatible server. */
  dialect: Sourced<Dialect>;
  /**
   * Set when a token would go to the default local address (no endpoint configured): the root
   * token svc found in lite's default data dir, or a configured token. The server must first
   * prove that it knows that root token, i.e. that it is the user's own lite.
   */
  liteProof?: LiteProofSetting;
}

export interface LiteProofSetting {
  /** lite's root token file in its default data dir. */
  tokenFile: string;
  /** The root token the proof is keyed with; undefined when the file is absent (no proof possible). */
  rootToken: string | undefined;
  /** Where the token sent came from, when it is a configured one rather than the root token itself. */
  tokenSource?: string;
}

/**
 * The profile table selected by `--profile` / `SVC_PROFILE`, else (with `file`) the current
 * profile the file names (`profile = "NAME"`, set by `svc config use-profile`), if any.
 */
export function selectedProfile(
  flags: SettingFlags,
  env: NodeJS.ProcessEnv,
  file?: TomlTable,
  path?: string,
): Sourced<string> | undefined {
  if (flags.profile) return { value: flags.profile, source: "flag --profile" };
  const fromEnv = envValue(env, "profile");
  if (fromEnv) return fromEnv;
  const current = file?.[CURRENT_PROFILE_KEY];
  if (typeof current === "string" && current !== "")
    return { value: current, source: `the current profile of ${path ?? "the config file"}` };
  return undefined;
}

/** The top-level key of the config file naming the current profile. */
export const CURRENT_PROFILE_KEY = "profile";

export function profileTable(file: TomlTable, name: string, path: string): TomlTable {
  const profiles = file.profiles;
  const table = typeof profiles === "object" ? profiles[name] : undefined;
  if (typeof table !== "object") {
    const names = typeof profiles === "object" ? Object.keys(profiles) : [];
    const near = nearest(name, names)[0];
    throw usageError(
      `profile ${JSON.stringify(name)} is not defined in ${path}${near === undefined ? "" : `; did you mean ${near}?`}`,
      near !== undefined
        ? `the profiles there: ${names.join(", ")} (\`svc config use-profile NAME\` makes one current)`
        : `add a [profiles.${name}] table, or run \`svc --profile ${name} config set KEY VALUE\`${names.length > 0 ? ` (the profiles there: ${names.join(", ")})` : ""}`,
    );
  }
  return table;
}

/** One key through the layers; its default (if it has one) when no layer sets it. */
function lookup(
  key: string,
  flags: SettingFlags,
  env: NodeJS.ProcessEnv,
  profile: TomlTable | undefined,
  profileName: string | undefined,
  file: TomlTable,
  path: string,
): Sourced<TomlValue> | undefined {
  const spec = CONFIG_KEYS[key]!;
  const name = `--${key.replaceAll("_", "-")}`;
  const flag = flags[keyOf(name) as keyof SettingFlags];
  if (flag !== undefined && flag !== "") return { value: spec.parse(flag, name), source: `flag ${name}` };
  const e = envValue(env, key as EnvSetting);
  if (e) return { value: spec.parse(e.value, ENV_VARS[key as EnvSetting]), source: e.source };
  // In a table, svc's name of the key, else S2's (`ssl_no_verify`, written as in S2's config file).
  const names = [key, ...Object.keys(S2_CONFIG_KEYS).filter((k) => S2_CONFIG_KEYS[k] === key)];
  const p = fileValue(profile, names);
  if (p !== undefined)
    return {
      value: spec.parse(p.value, `${p.name} in ${path} [profiles.${profileName}]`),
      source: `profile ${profileName} of ${path}`,
    };
  const f = fileValue(file, names);
  if (f !== undefined) return { value: spec.parse(f.value, `${f.name} in ${path}`), source: `config ${path}` };
  return spec.default === undefined ? undefined : { value: spec.default, source: "default" };
}

/** The first of `names` that `table` gives a value (not a table) to, with the name it had. */
function fileValue(table: TomlTable | undefined, names: string[]): { name: string; value: TomlValue } | undefined {
  for (const name of names) {
    const v = table?.[name];
    if (v !== undefined && typeof v !== "object") return { name, value: v };
  }
  return undefined;
}

export function resolveSettings(flags: SettingFlags, env: NodeJS.ProcessEnv, file: TomlTable, path: string): Settings {
  const prof = selectedProfile(flags, env, file, path);
  const table = prof ? profileTable(file, prof.value, path) : undefined;
  const get = (k: string) => lookup(k, flags, env, table, prof?.value, file, path);

  let account = get("account_endpoint") as Sourced<string> | undefined;
  let basin = get("basin_endpoint") as Sourced<string> | undefined;
  // An S2 user's shell setup (S2_ACCOUNT_ENDPOINT, S2_BASIN_ENDPOINT) where svc's own settings
  // name no endpoint: S2's endpoints, in S2's dialect, with S2's token.
  const s2 = account === undefined && basin === undefined ? s2Endpoints(env) : undefined;
  if (s2) [account, basin] = s2;
  if ((account === undefined) !== (basin === undefined)) {
    const [set, missing] = account ? [account, "basin"] : [basin!, "account"];
    throw usageError(
      `only one endpoint is configured: the ${missing === "basin" ? "account" : "basin"} endpoint comes from ${set.source}, but the ${missing} endpoint is not set. ` +
        `Set both (--${missing}-endpoint, ${ENV_VARS[`${missing}_endpoint` as EnvSetting]} or \`svc config set ${missing}_endpoint URL\`); for a single shared endpoint such as svc lite, use the same URL for both`,
      "svc never falls back to a default endpoint when only one is set; see `svc config --help`",
    );
  }
  const timeout = get("timeout") as Sourced<string>;
  const settings: Settings = {
    // Sources are shown in parentheses ("(from …)"): they hold none of their own.
    accountEndpoint: account ?? { value: LOCAL_LITE_ENDPOINT, source: "default: the local svc lite" },
    basinEndpoint: basin ?? { value: LOCAL_LITE_ENDPOINT, source: "default: the local svc lite" },
    compression: get("compression") as Sourced<CompressionSetting>,
    insecure: get("insecure") as Sourced<boolean>,
    timeoutMs: { value: parseDuration(timeout.value), source: timeout.source },
    retries: get("retries") as Sourced<number>,
    dialect: get("dialect") as Sourced<Dialect>,
    notes: [],
  };
  if (s2 && settings.dialect.source === "default")
    settings.dialect = { value: "s2", source: `implied by ${(s2[0] ?? s2[1])!.source}` };
  if (prof) settings.profile = prof.value;
  if (settings.insecure.source === "default") {
    const noVerify = s2Insecure(env, s2 !== undefined, settings.notes);
    if (noVerify) settings.insecure = noVerify;
  }
  const token = (get("access_token") as Sourced<string> | undefined) ?? s2Token(env, s2 !== undefined, settings.notes);
  if (token) settings.accessToken = token;
  if (account === undefined) {
    // The default local address: any local user may listen there, so whichever token goes
    // there goes only to a server proving it is the user's lite (43.7: a configured token too).
    const root = readLiteRootToken(env);
    const tokenFile = liteTokenPath(env);
    if (token) settings.liteProof = { tokenFile, rootToken: root?.value, tokenSource: token.source };
    else if (root) {
      settings.accessToken = root;
      settings.liteProof = { tokenFile, rootToken: root.value };
    }
  }
  return settings;
}

/** S2's endpoint variables, when either is set (a half-set pair is reported as svc's own). */
function s2Endpoints(env: NodeJS.ProcessEnv): [Sourced<string> | undefined, Sourced<string> | undefined] | undefined {
  const account = s2EnvValue(env, "account_endpoint");
  const basin = s2EnvValue(env, "basin_endpoint");
  return account || basin ? [account, basin] : undefined;
}

/** S2_ACCESS_TOKEN, used only with S2's endpoints: else a note says why it was not. */
function s2Token(env: NodeJS.ProcessEnv, s2Endpoints: boolean, notes: string[]): Sourced<string> | undefined {
  const token = s2EnvValue(env, "access_token");
  if (!token || s2Endpoints) return token;
  notes.push(
    `${S2_ENV_VARS.access_token} is ignored: it is sent only to the endpoints of ${S2_ENV_VARS.account_endpoint} and ${S2_ENV_VARS.basin_endpoint}, and svc's own settings name the endpoints here (or none is set)`,
  );
  return undefined;
}

/** S2_SSL_NO_VERIFY, S2's skipping of TLS verification: only with S2's endpoints, else a note says why not. */
function s2Insecure(env: NodeJS.ProcessEnv, s2Endpoints: boolean, notes: string[]): Sourced<boolean> | undefined {
  const v = s2EnvValue(env, "insecure");
  if (!v) return undefined;
  if (s2Endpoints)
    return { value: CONFIG_KEYS.insecure!.parse(v.value, S2_ENV_VARS.insecure) as boolean, source: v.source };
  notes.push(
    `${S2_ENV_VARS.insecure} is ignored: it applies only to the endpoints of ${S2_ENV_VARS.account_endpoint} and ${S2_ENV_VARS.basin_endpoint}, and svc's own settings name the endpoints here (or none is set); svc's setting is insecure (--insecure, ${ENV_VARS.insecure})`,
  );
  return undefined;
}

export function liteTokenPath(env: NodeJS.ProcessEnv): string {
  return join(localLiteDataDir(env), ROOT_TOKEN_FILE);
}

function readLiteRootToken(env: NodeJS.ProcessEnv): Sourced<string> | undefined {
  const file = liteTokenPath(env);
  try {
    const token = readFileSync(file, "utf8").trim();
    return token === "" ? undefined : { value: token, source: `svc lite's root token in ${file}` };
  } catch {
    return undefined;
  }
}
