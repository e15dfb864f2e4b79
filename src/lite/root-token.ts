/**
 * The root token: 256 random bits, base64url, generated on first start and kept mode 0600 in
 * the data dir (a fresh one per run with --in-memory).
 */
import { randomBytes } from "node:crypto";
import { clientError } from "../errors.js";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

export function loadOrCreateRootToken(dataDir: string): string {
  const path = join(dataDir, "root-token");
  try {
    const existing = readFileSync(path, "utf8").trim();
    if (existing.length > 0) return existing;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  const token = newToken();
  writeFileSync(path, `${token}\n`, { mode: 0o600, flag: "w" });
  chmodSync(path, 0o600);
  return token;
}

/**
 * A root token chosen by the caller (CI): the file's first line, at least 16 printable
 * ASCII characters without spaces. The token itself never appears in a message.
 */
export function readRootTokenFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw clientError("usage", `svc lite: cannot read --root-token-file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const token = text.split(/\r?\n/)[0]!.trim();
  if (!/^[\x21-\x7e]{16,512}$/.test(token)) {
    throw clientError("usage", `svc lite: --root-token-file ${path} must hold one token of 16 to 512 printable ASCII characters without spaces`);
  }
  return token;
}
