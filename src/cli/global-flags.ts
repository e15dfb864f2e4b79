/**
 * The global flags: every command takes them, before or after its own arguments (`svc help
 * globals`). Declared once, as every flag is (flags/declare.ts). A flag that gives a setting
 * (`--timeout`, `--access-token`) is named after it; its help names the setting's environment
 * variable (env-vars.ts) and default (config-keys.ts), which the settings layer applies.
 */

import { DIALECTS } from "../types.js";
import { COMPRESSIONS, CONFIG_KEYS } from "./config-keys.js";
import { envName } from "./env-vars.js";
import { bool, choice, type Flag, type FlagValues, flagList, given, longName, text } from "./flags/declare.js";

/** A command line is readable by every local user: the two secrets it may carry say so, and where else to give them. */
const SHARED_MACHINE = (instead: string) =>
  `on a shared machine use ${instead}: other users can read a command line (/proc/<pid>/cmdline)`;

/** `flag`, whose help also names the environment variable and the default of the setting it gives. */
function setting<F extends Flag>(flag: F, note?: string): F {
  const key = longName(flag.term).replaceAll("-", "_");
  const env = envName(key);
  if (env === undefined) throw new Error(`no environment variable gives ${key}`);
  const fallback = CONFIG_KEYS[key]?.default;
  const shown = fallback === undefined || typeof fallback === "boolean" ? "" : `, default ${fallback}`;
  return { ...flag, help: `${flag.help} (env ${env}${shown})${note ? `; ${note}` : ""}` };
}

export const GLOBAL_FLAGS = flagList(
  setting(text("--access-token <token>", "access token"), SHARED_MACHINE("the env or the config file")),
  setting(text("--account-endpoint <url>", "account endpoint")),
  setting(text("--basin-endpoint <url>", "basin endpoint, may contain {basin}")),
  setting(text("--profile <name>", "use [profiles.NAME] of the config file")),
  setting(text("--config <file>", "config file")),
  bool("--json", "machine-readable JSON on stdout"),
  bool("-q, --quiet", "print nothing on stderr except errors and warnings"),
  bool("-v, --verbose", "log requests (method, URL, status, latency, retries) on stderr"),
  bool("--no-color", "no colours on stderr or in charts (also NO_COLOR)"),
  setting(text("--timeout <dur>", "per-request timeout")),
  setting(text("--retries <n>", "retries after the first attempt")),
  setting(choice("--compression <alg>", "compression for data requests", COMPRESSIONS)),
  setting(given("--insecure", "skip TLS certificate verification")),
  setting(choice("--dialect <names>", "header names: svc, or s2 for an S2-compatible server", DIALECTS)),
  setting(
    text("-k, --encryption-key <key>", "key for encrypted streams: base64 of 32 bytes, never printed"),
    SHARED_MACHINE("the env or --encryption-key-file"),
  ),
  text("--encryption-key-file <file>", "read the encryption key from a file"),
);

export type GlobalFlags = FlagValues<typeof GLOBAL_FLAGS>;
