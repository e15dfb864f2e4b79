/**
 * Attack (security review): svc lite trusted whatever it found in its data dir. Another local
 * user pre-created a world-writable data dir holding a 0666 `root-token` of their choosing,
 * and lite printed it as `SVC_ACCESS_TOKEN` and accepted it as the root token: the attacker
 * held the account before the first record was written. A root-token that was a symlink was
 * followed (read, or written through, wherever it pointed), and a data dir, root-token or
 * data file owned by another user was used as it was.
 *
 * Now, as ssh does, lite refuses at start (exit 1, one line saying why and what to do) a data
 * dir that another user owns or that others can write, a data file (data.mdb, lock.mdb) that
 * another user owns or others can write, and a root-token that is a symlink, another user's,
 * or readable or writable by others; the planted token is never printed. A dir of one's own
 * (including one readable by others, mode 0755) still works.
 * The "another user" cases need root (chown to nobody); they are skipped otherwise.
 */
import { chmodSync, chownSync, mkdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { spawnLite } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";

const PLANTED = "planted-by-another-user-0123456789";
const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;

/** Starts lite on `dir`: the message it failed with, or "started" (and stops it). */
async function start(dir: string): Promise<string> {
  return spawnLite(["--port", "0", "--data-dir", dir]).then(
    async (s) => {
      s.child.kill("SIGKILL");
      await s.exited;
      return `started with token ${s.token}`;
    },
    (e: Error) => e.message,
  );
}

function dataDir(name: string, mode = 0o700): string {
  const dir = join(scratchDir("svc-trust-"), name);
  mkdirSync(dir);
  chmodSync(dir, mode);
  return dir;
}

function plant(dir: string, mode: number): string {
  const file = join(dir, "root-token");
  writeFileSync(file, `${PLANTED}\n`);
  chmodSync(file, mode);
  return file;
}

describe("a data dir that someone else could have prepared", () => {
  it("refuses a world-writable data dir holding a world-writable root-token, and never prints it", async () => {
    const dir = dataDir("open", 0o777);
    plant(dir, 0o666);
    const err = await start(dir);
    expect(err).toMatch(/exited \(1\)/);
    expect(err).toMatch(
      /the data dir is not safe: users other than its owner can write it \(mode 0777\); make it yours alone \(chmod go-w /,
    );
    expect(err).not.toContain(PLANTED);
    expect(err).not.toMatch(/\n\s+at /);
  });

  it("refuses a group-writable data dir", async () => {
    expect(await start(dataDir("group", 0o770))).toMatch(/can write it \(mode 0770\)/);
  });

  it("refuses a root-token that others can read or write, in a dir of one's own", async () => {
    for (const mode of [0o666, 0o644, 0o620]) {
      const dir = dataDir(`token-${mode.toString(8)}`);
      const file = plant(dir, mode);
      const err = await start(dir);
      expect(err, mode.toString(8)).toMatch(/exited \(1\)/);
      expect(err).toContain(
        `refusing ${file}: the root token file is not secret: others may read or write it (mode 0${mode.toString(8)}); chmod 600 ${file}`,
      );
      expect(err).not.toContain(PLANTED);
    }
  });

  it("refuses a root-token that is a symlink (not followed to read, nor to write through)", async () => {
    const elsewhere = join(scratchDir("svc-trust-elsewhere-"), "chosen");
    writeFileSync(elsewhere, `${PLANTED}\n`, { mode: 0o600 });
    const dir = dataDir("link");
    symlinkSync(elsewhere, join(dir, "root-token"));
    const err = await start(dir);
    expect(err).toMatch(/the root token file is a symbolic link/);
    expect(err).not.toContain(PLANTED);

    const dangling = dataDir("dangling");
    symlinkSync(join(dangling, "target"), join(dangling, "root-token"));
    expect(await start(dangling)).toMatch(/the root token file is a symbolic link/);
  });

  it("refuses a data file that others can write", async () => {
    const dir = dataDir("data-file");
    writeFileSync(join(dir, "data.mdb"), "");
    chmodSync(join(dir, "data.mdb"), 0o666);
    expect(await start(dir)).toMatch(
      /data\.mdb: a data file that is not safe: users other than its owner can write it \(mode 0666\)/,
    );
  });

  it("still starts on a dir of one's own, readable by others, and keeps the token 0600", async () => {
    const dir = dataDir("mine", 0o755);
    const first = await start(dir);
    expect(first).toMatch(/^started with token /);
    expect(statSync(join(dir, "root-token")).mode & 0o777).toBe(0o600);
    expect(await start(dir)).toBe(first);
  });

  it.skipIf(!isRoot)(
    "refuses a data dir, a root-token or a data file owned by another user (as root: nobody)",
    async () => {
      const theirs = dataDir("theirs", 0o755);
      chownSync(theirs, NOBODY, NOBODY);
      const err = await start(theirs);
      expect(err).toMatch(
        /the data dir is not safe: it belongs to another user \(uid 65534\), who could have chosen what it holds; use a data dir of your own/,
      );

      const tokenTheirs = dataDir("token-theirs");
      chownSync(plant(tokenTheirs, 0o600), NOBODY, NOBODY);
      const err2 = await start(tokenTheirs);
      expect(err2).toMatch(/the root token file is not secret: it belongs to another user \(uid 65534\)/);
      expect(err2).not.toContain(PLANTED);

      const dataTheirs = dataDir("data-theirs");
      writeFileSync(join(dataTheirs, "data.mdb"), "", { mode: 0o600 });
      chownSync(join(dataTheirs, "data.mdb"), NOBODY, NOBODY);
      expect(await start(dataTheirs)).toMatch(/data\.mdb: a data file that is not safe: it belongs to another user/);
    },
  );
});
