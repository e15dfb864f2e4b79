/**
 * Found by a second security review: `--root-token-file` and `--tls-key` accepted a named pipe
 * another user made. Pipes were read as they were (so that bash's `<(…)` works: nothing of it
 * is on disk), before any owner or mode check, so a user who made `mkfifo -m 666 /tmp/shared/t`
 * and wrote into it chose lite's root token when the operator pointed lite at that path. Now a
 * pipe is judged as a file is: another user's is refused, and so is one that others may read
 * or write; `<(…)` (a pipe of the user's own, mode 0600) still works
 * (chosen-secret-file-readable-by-others.test.ts).
 */
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { scratchDir } from "../helpers/scratch.js";

const CHOSEN_BY_OTHERS = "token-chosen-by-another-user-0123456789";

/** Starts lite on the pipe while the test writes the other user's token into it. */
async function startOnPipe(fifo: string, flag = ["--root-token-file"]) {
  const writer = writeFile(fifo, `${CHOSEN_BY_OTHERS}\n`).catch(() => undefined);
  const r = await runSvc(["lite", "--port", "0", "--in-memory", ...flag, fifo], { timeoutMs: 20_000 }).catch(
    (e: Error) => ({ code: null, stdout: e.message, stderr: e.message }),
  );
  await writer;
  return r;
}

function mkfifo(mode: number): string {
  const fifo = join(scratchDir("svc-fifo-"), "token");
  execFileSync("mkfifo", [fifo]);
  chmodSync(fifo, mode);
  return fifo;
}

describe("a named pipe as a chosen secret", () => {
  // Only root can give a pipe to another user: the case runs where the tests run as root.
  it.runIf(process.getuid?.() === 0)(
    "another user's pipe (mode 666) is refused, and its token never used",
    async () => {
      const fifo = mkfifo(0o666);
      chownSync(fifo, 65534, 65534);
      const r = await startOnPipe(fifo);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`refusing --root-token-file ${fifo}, a secret (a pipe): it belongs to another user`);
      expect(r.stdout).not.toContain(CHOSEN_BY_OTHERS);
      expect(r.stderr).not.toContain(CHOSEN_BY_OTHERS);
    },
  );

  it("a pipe of one's own that others may write or read is refused too", async () => {
    for (const mode of [0o622, 0o644]) {
      const fifo = mkfifo(mode);
      const r = await startOnPipe(fifo);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`refusing --root-token-file ${fifo}, a secret (a pipe)`);
      expect(r.stderr).toContain(`chmod 600 ${fifo}`);
      expect(r.stdout).not.toContain(CHOSEN_BY_OTHERS);
    }
  });

  it("--tls-key on another user's pipe is refused the same way", async () => {
    const fifo = mkfifo(0o666);
    if (process.getuid?.() === 0) chownSync(fifo, 65534, 65534);
    const r = await startOnPipe(fifo, ["--tls-cert", "/dev/null", "--tls-key"]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`refusing the TLS key ${fifo}, a secret (a pipe)`);
  });
});
