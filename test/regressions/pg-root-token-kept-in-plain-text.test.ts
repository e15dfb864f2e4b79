/**
 * Found by a second security review: on PostgreSQL the shared root token was stored as it is,
 * in `svc_settings` (`root_token`), so any role that could read that table (a reporting role, a
 * backup, a replica's reader) held the service's root. Now the database keeps what checking it
 * needs, its SHA-256 (`root_token_sha256`), as it does for issued tokens: the node that makes
 * the token prints it, a later node prints none (and says why) yet accepts it; a
 * `--root-token-file` that does not match is refused at start; a database of an older svc has
 * its token replaced by the hash at the first start (that node can still print it); rotating
 * is deleting the row and starting a node with the new token (docs/security.md).
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { liteClient, spawnLite } from "../helpers/lite.js";
import { freshDatabase, PG_PASSWORD } from "../helpers/postgres.js";
import { scratchDir } from "../helpers/scratch.js";

const sha256 = (t: string): string => createHash("sha256").update(t).digest("hex");

let db: Awaited<ReturnType<typeof freshDatabase>>;
let admin: pg.Client;
beforeAll(async () => {
  db = await freshDatabase();
  const u = new URL(db.url);
  u.password = PG_PASSWORD;
  admin = new pg.Client({ connectionString: u.toString() });
  await admin.connect();
});
afterAll(async () => {
  await admin?.end();
  await db?.drop();
});

const ENV = { PGPASSWORD: PG_PASSWORD };
const settings = async () =>
  Object.fromEntries((await admin.query("SELECT key, value FROM svc_settings")).rows.map((r) => [r.key, r.value]));

function tokenFile(token: string): string {
  const file = join(scratchDir("svc-root-"), "token");
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return file;
}

async function node(args: string[] = []) {
  const s = await spawnLite(["--port", "0", "--storage", db.url, ...args], ENV);
  return {
    ...s,
    ok: async (token: string) => (await liteClient({ url: s.url, token }).call("GET", "/v1/basins")).status === 200,
    async stop() {
      s.child.kill("SIGTERM");
      await s.exited;
    },
  };
}

describe("the shared root token on PostgreSQL", () => {
  it("is stored as its SHA-256 only; a later node accepts it without printing it", async () => {
    const a = await node();
    const b = await node();
    try {
      expect(a.token).not.toBe("");
      expect(await settings()).toEqual({ root_token_sha256: sha256(a.token) });
      expect(JSON.stringify(await settings())).not.toContain(a.token);
      expect(b.token).toBe("");
      expect(await b.ok(a.token)).toBe(true);
      expect(await b.ok(`${a.token}x`)).toBe(false);
      await b.stop();
      expect(b.stderr()).toContain("root token: the one the database keeps");
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it("a --root-token-file that is not the stored one is refused at start", async () => {
    const r = await runSvc(
      ["lite", "--port", "0", "--storage", db.url, "--root-token-file", tokenFile("another-token-0123456789")],
      {
        env: ENV,
        timeoutMs: 20_000,
      },
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain("--root-token-file holds another root token than the one this database keeps");
    expect(r.stdout).not.toContain("another-token");
  });

  it("an older database's plain token is replaced by its hash, and that node still prints it", async () => {
    await admin.query("DELETE FROM svc_settings");
    await admin.query("INSERT INTO svc_settings (key, value) VALUES ('root_token', 'the-old-plain-root-token-42')");
    const a = await node();
    try {
      expect(a.token).toBe("the-old-plain-root-token-42");
      expect(await settings()).toEqual({ root_token_sha256: sha256("the-old-plain-root-token-42") });
      expect(await a.ok("the-old-plain-root-token-42")).toBe(true);
    } finally {
      await a.stop();
    }
  });

  it("rotates: the row deleted, a node started with the new token stores it, the old one is refused", async () => {
    await admin.query("DELETE FROM svc_settings WHERE key = 'root_token_sha256'");
    const file = tokenFile("the-new-root-token-0123456789");
    const a = await node(["--root-token-file", file]);
    const b = await node();
    try {
      expect(a.token).toBe("the-new-root-token-0123456789");
      expect(await settings()).toEqual({ root_token_sha256: sha256("the-new-root-token-0123456789") });
      expect(await b.ok("the-new-root-token-0123456789")).toBe(true);
      expect(await b.ok("the-old-plain-root-token-42")).toBe(false);
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});
