/**
 * The root token: 256 random bits, base64url, generated on first start and kept mode 0600 in
 * the data dir (a fresh one per run with --in-memory).
 */
import { randomBytes } from "node:crypto";
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
