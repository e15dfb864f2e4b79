/**
 * The root token: 256 random bits, base64url, generated on first start and kept mode 0600 in
 * the data dir, where svc finds it when nothing is configured (local-lite.ts; a fresh one per
 * run with --in-memory).
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { clientError } from "../errors.js";
import { ROOT_TOKEN_FILE } from "../local-lite.js";
import { SECRET, writeWhole } from "../whole-file.js";
import { readChosenSecret, readSecret } from "./data-dir.js";

export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

/** The data dir's root token, made on first start; one that is not the owner's alone is refused (data-dir.ts). */
export function loadOrCreateRootToken(dataDir: string): string {
  const path = join(dataDir, ROOT_TOKEN_FILE);
  const existing = readSecret(path, "the root token file")?.trim();
  if (existing) return existing;
  const token = newToken();
  writeWhole(path, `${token}\n`, SECRET);
  return token;
}

/**
 * A root token chosen by the caller (CI): the file's first line, at least 16 printable
 * ASCII characters without spaces, in a file others cannot read (data-dir.ts). The token
 * itself never appears in a message.
 */
export function readRootTokenFile(path: string): string {
  const token = readChosenSecret(path, "--root-token-file").split(/\r?\n/)[0]!.trim();
  if (!/^[\x21-\x7e]{16,512}$/.test(token)) {
    throw clientError(
      "usage",
      `svc lite: --root-token-file ${path} must hold one token of 16 to 512 printable ASCII characters without spaces`,
    );
  }
  return token;
}
