/**
 * The config file: `--config FILE`, else `$SVC_CONFIG`, else `$XDG_CONFIG_HOME/svc/config.toml`, else
 * `~/.config/svc/config.toml`. The directory is kept 0700 and the file 0600; it is written whole
 * and durably (whole-file.ts, SECRET: it holds access tokens) under a lock file. A file that does not
 * parse is a fatal usage error naming its path, never a silent reset.
 */
import { chmodSync, closeSync, openSync, readFileSync, rmSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { makeDirs } from "../dirs.js";
import { SECRET, writeWhole } from "../whole-file.js";
import { envValue } from "./env-vars.js";
import { ioError, usageError } from "./failure.js";
import { parseToml, stringifyToml, TomlError, type TomlTable } from "./toml.js";

export function configPath(env: NodeJS.ProcessEnv, flag?: string): string {
  if (flag) return flag;
  const fromEnv = envValue(env, "config");
  if (fromEnv) return fromEnv.value;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return join(base, "svc", "config.toml");
}

export function readConfigFile(path: string): TomlTable {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw usageError(`cannot read config file ${path}: ${(e as Error).message}`);
  }
  try {
    return parseToml(text);
  } catch (e) {
    if (e instanceof TomlError)
      throw usageError(
        `cannot parse config file ${path}: ${e.message}`,
        'fix the file (svc reads a TOML subset: key = "value" lines and [profiles.NAME] tables), or move it away',
      );
    throw e;
  }
}

const LOCK_TIMEOUT_MS = 10_000;
const LOCK_STALE_MS = 60_000;

/** Read, change and write the file atomically under `config.lock`. */
export async function updateConfigFile(path: string, change: (table: TomlTable) => void): Promise<void> {
  const dir = dirname(path);
  try {
    makeDirs(dir, 0o700);
  } catch (e) {
    throw ioError(`cannot create the config directory ${dir}: ${(e as Error).message}`, e);
  }
  try {
    chmodSync(dir, 0o700);
  } catch {
    // Not ours to fix (e.g. a shared directory given through SVC_CONFIG); the file stays 0600.
  }
  const lock = join(dir, "config.lock");
  await acquire(lock);
  try {
    const table = readConfigFile(path);
    change(table);
    writeWhole(path, stringifyToml(table), SECRET);
  } finally {
    rmSync(lock, { force: true });
  }
}

async function acquire(lock: string): Promise<void> {
  const deadline = Date.now() + LOCK_TIMEOUT_MS;
  for (;;) {
    try {
      closeSync(openSync(lock, "wx", 0o600));
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      try {
        if (Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS) rmSync(lock, { force: true });
      } catch {
        // The holder released it in between.
      }
      if (Date.now() > deadline)
        throw usageError(`timed out waiting for another svc process to update the config (lock file ${lock})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
