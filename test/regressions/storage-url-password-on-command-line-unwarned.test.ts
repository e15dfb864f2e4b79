/**
 * Found by a second security review: `svc lite --storage postgres://USER:PASSWORD@…` put the
 * database password in the process's command line, which every local user can read in
 * /proc/PID/cmdline (and `ps`), and lite said nothing. Now lite warns once at start when the
 * --storage URL carries a password, naming the safe forms (`--storage-password-file`,
 * PGPASSWORD); a URL in SVC_LITE_STORAGE (the environment, readable by the user only) and a
 * password from PGPASSWORD are not warned about. The password itself never prints.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnLite } from "../helpers/lite.js";
import { freshDatabase, PG_PASSWORD } from "../helpers/postgres.js";

const WARNING = "warning: the --storage URL carries a password";
let db: Awaited<ReturnType<typeof freshDatabase>>;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db?.drop();
});

const withPassword = (url: string): string =>
  url.replace("postgres://postgres@", `postgres://postgres:${PG_PASSWORD}@`);

async function stderrOf(args: string[], env: Record<string, string>): Promise<string> {
  const lite = await spawnLite(["--port", "0", ...args], env);
  lite.child.kill("SIGTERM");
  await lite.exited;
  return lite.stderr();
}

describe("a database password on the command line", () => {
  it("is warned about once at start, and never printed", async () => {
    const err = await stderrOf(["--storage", withPassword(db.url)], { PGPASSWORD: "" });
    expect(err.split(WARNING).length - 1).toBe(1);
    expect(err).toContain("--storage-password-file");
    expect(err).toContain("PGPASSWORD");
    expect(err).not.toContain(PG_PASSWORD);
  });

  it("is not warned about when the password comes from PGPASSWORD or the URL from SVC_LITE_STORAGE", async () => {
    expect(await stderrOf(["--storage", db.url], { PGPASSWORD: PG_PASSWORD })).not.toContain(WARNING);
    expect(await stderrOf([], { PGPASSWORD: "", SVC_LITE_STORAGE: withPassword(db.url) })).not.toContain(WARNING);
  });
});
