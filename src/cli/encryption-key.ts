/**
 * The stream encryption key (protocol.md §8.8): `-k/--encryption-key KEY`, else
 * `--encryption-key-file FILE`, else env SVC_ENCRYPTION_KEY. The base64 of 32 bytes; it is
 * sent as `svc-encryption-key` on basin-level requests and never printed (errors name only
 * where it came from).
 */
import { readFileSync } from "node:fs";
import { clientError } from "../errors.js";
import { isEncryptionKeyText } from "../rules/encryption-key.js";
import { ENV_VARS, envValue } from "./env-vars.js";
import type { GlobalFlags } from "./global-flags.js";

export function resolveEncryptionKey(flags: Partial<GlobalFlags>, env: NodeJS.ProcessEnv): string | undefined {
  if (flags.encryptionKey !== undefined && flags.encryptionKeyFile !== undefined) {
    throw clientError("usage", "give --encryption-key or --encryption-key-file, not both");
  }
  let value: string | undefined;
  let source: string;
  if (flags.encryptionKey !== undefined) {
    value = flags.encryptionKey;
    source = "--encryption-key";
  } else if (flags.encryptionKeyFile !== undefined) {
    source = `--encryption-key-file ${flags.encryptionKeyFile}`;
    try {
      value = readFileSync(flags.encryptionKeyFile, "utf8").trim();
    } catch (e) {
      throw clientError("usage", `cannot read ${source}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  } else {
    value = envValue(env, "encryption_key")?.value;
    source = ENV_VARS.encryption_key;
  }
  if (value === undefined) return undefined;
  if (!isEncryptionKeyText(value)) {
    throw clientError(
      "usage",
      `the encryption key from ${source} must be the base64 of 32 bytes (e.g. from \`openssl rand -base64 32\`)`,
    );
  }
  return value;
}
