/**
 * Found by a security review (issue 43): `npm run cluster` started its PostgreSQL with the
 * superuser `postgres` and a password written in the repository (test/bench/lib/postgres.mjs),
 * listening on 127.0.0.1, and the nodes connected as that superuser. Another local user (uid
 * 65534) logged in with it, read lite's tables, minted a token the nodes accepted, and ran a
 * shell command as the OS user postgres (`COPY … TO PROGRAM`). Now the password is made per run
 * and kept in a 0600 file, the superuser may connect only through a unix socket in a private
 * directory, and the nodes connect as a role that owns only its database.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { type ClusterRun, startClusterScript } from "../helpers/cluster-script.js";
import { freePort } from "../helpers/free-port.js";

const asRoot = process.getuid?.() === 0;
let run: ClusterRun | undefined;

afterAll(async () => {
  await run?.interrupt();
});

/** What uid 65534 gets when it tries each way in; run as that user in a child process. */
function stranger(port: number, socketDir: string, files: string[]): Record<string, string> {
  const code = `
    const pg = require(${JSON.stringify(createRequire(import.meta.url).resolve("pg"))});
    const fs = require("node:fs");
    const tryLogin = async (cfg) => {
      const c = new pg.Client({ database: "postgres", connectionTimeoutMillis: 5000, ...cfg });
      try { await c.connect(); await c.end(); return "logged in"; } catch { c.end().catch(() => {}); return "refused"; }
    };
    (async () => {
      const out = {};
      out.tcpOldPassword = await tryLogin({ host: "127.0.0.1", port: ${port}, user: "postgres", password: "svc-test-password" });
      out.tcpNoPassword = await tryLogin({ host: "127.0.0.1", port: ${port}, user: "postgres", password: "" });
      out.tcpLiteRoleNoPassword = await tryLogin({ host: "127.0.0.1", port: ${port}, user: "svc", password: "", database: "svc" });
      if (${JSON.stringify(socketDir)}) out.socket = await tryLogin({ host: ${JSON.stringify(socketDir)}, port: ${port}, user: "postgres", password: "" });
      for (const f of ${JSON.stringify(files)}) {
        try { fs.readFileSync(f); out[f] = "read"; } catch { out[f] = "refused"; }
      }
      process.stdout.write(JSON.stringify(out));
    })();`;
  const r = spawnSync(process.execPath, ["-e", code], { uid: 65534, gid: 65534, encoding: "utf8", cwd: "/" });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, string>;
}

describe("npm run cluster's PostgreSQL", () => {
  it.skipIf(!asRoot)(
    "has no superuser another local user can reach, and the nodes' role is not one",
    async () => {
      run = await startClusterScript(["--nodes", "1", "--port", String(await freePort())]);
      const port = Number(/embedded, port (\d+)/.exec(run.err())?.[1]);
      expect(port).toBeGreaterThan(0);
      // A stranger with the password that was in the repository, or none, gets nowhere.
      const tcp = stranger(port, "", []);
      expect(tcp).toEqual({ tcpOldPassword: "refused", tcpNoPassword: "refused", tcpLiteRoleNoPassword: "refused" });

      const passwordFile = /role svc[^\n]*password is in (\S+)$/m.exec(run.err())?.[1];
      const socketDir = /superuser[^\n]*unix socket in (\S+)$/m.exec(run.err())?.[1];
      expect(passwordFile, run.err()).toBeDefined();
      expect(socketDir, run.err()).toBeDefined();
      expect((statSync(passwordFile!).mode & 0o777).toString(8)).toBe("600");
      expect((statSync(socketDir!).mode & 0o777).toString(8)).toBe("700");
      const files = [passwordFile!, ...readdirSync(socketDir!).map((f) => `${socketDir}/${f}`)];
      const local = stranger(port, socketDir!, files);
      expect(local).toEqual({
        tcpOldPassword: "refused",
        tcpNoPassword: "refused",
        tcpLiteRoleNoPassword: "refused",
        socket: "refused",
        ...Object.fromEntries(files.map((f) => [f, "refused"])),
      });

      // The nodes' role owns its database and nothing more.
      const password = readFileSync(passwordFile!, "utf8").trim();
      const c = new pg.Client({ host: "127.0.0.1", port, user: "svc", password, database: "svc" });
      await c.connect();
      try {
        const { rows } = await c.query(
          "SELECT rolsuper, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = current_user",
        );
        expect(rows).toEqual([{ rolsuper: false, rolcreaterole: false, rolcreatedb: false }]);
        expect((await c.query("SELECT count(*)::int AS n FROM svc_basins")).rows).toEqual([{ n: 0 }]);
        await expect(c.query("COPY (SELECT 1) TO PROGRAM 'true'")).rejects.toMatchObject({ code: "42501" });
        await expect(c.query("SELECT pg_read_file('postgresql.conf')")).rejects.toMatchObject({ code: "42501" });
      } finally {
        await c.end();
      }
      expect(await run.interrupt()).toBe(130);
      run = undefined;
    },
    180_000,
  );
});
