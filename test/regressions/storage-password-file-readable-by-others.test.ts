/**
 * Found by a second security review: `--storage-password-file F` was read with no permission
 * check, so lite ran on a PostgreSQL password that any local user could read (a 0644 file, what
 * `echo … > F` makes), while `--root-token-file` and `--tls-key` are refused in that state. Now
 * the same rule holds for all three (lite/data-dir.ts): the file must be the user's alone
 * (0600), or root's and readable by its group only (0640); the refusal says how to fix it and
 * never shows the password.
 */
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { spawnLite } from "../helpers/lite.js";
import { freshDatabase, PG_PASSWORD } from "../helpers/postgres.js";
import { scratchDir } from "../helpers/scratch.js";

let db: Awaited<ReturnType<typeof freshDatabase>>;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db?.drop();
});

describe("--storage-password-file", () => {
  it("readable or writable by others is refused at start, with the fix and without the password", async () => {
    const file = join(scratchDir("svc-pgpass-"), "password");
    writeFileSync(file, `${PG_PASSWORD}\n`);
    for (const mode of [0o644, 0o604, 0o620]) {
      chmodSync(file, mode);
      const r = await runSvc(["lite", "--port", "0", "--storage", db.url, "--storage-password-file", file], {
        env: { PGPASSWORD: "" },
        timeoutMs: 20_000,
      });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`refusing --storage-password-file ${file}, a secret`);
      expect(r.stderr).toContain(`chmod 600 ${file}`);
      expect(r.stderr + r.stdout).not.toContain(PG_PASSWORD);
    }
  });

  it("of one's own, mode 0600, is used", async () => {
    const file = join(scratchDir("svc-pgpass-"), "password");
    writeFileSync(file, `${PG_PASSWORD}\n`, { mode: 0o600 });
    const lite = await spawnLite(["--port", "0", "--storage", db.url, "--storage-password-file", file], {
      PGPASSWORD: "",
    });
    lite.child.kill("SIGTERM");
    await lite.exited;
    expect(lite.stderr()).toContain(`data in PostgreSQL at ${db.url}`);
    expect(lite.stderr()).not.toContain(PG_PASSWORD);
  });
});
