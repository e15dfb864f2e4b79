/**
 * Bug: `svc lite --root-token-file F` and `--tls-key F` used files that anyone on the machine
 * could read (mode 0644, what `echo … > F` makes): the root token, the key to everything, or
 * the TLS key was open to every local user, and lite said nothing, while the root token it
 * keeps itself must be 0600. Now such a file is refused at start, the way PostgreSQL refuses
 * its server key: it must be the owner's alone (0600), or root's and readable only by its
 * group (0640). The message says how to fix it and never shows what the file holds. A pipe
 * (`--root-token-file <(pass show …)`) still works: nothing of it is on disk.
 */
import { spawn } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SETTINGS } from "../../src/lite/option-table.js";
import { selfSigned } from "../../src/lite/tls-cert.js";
import { runSvc, SVC_BIN } from "../helpers/cli.js";
import { liteClient, startLite } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";

const TOKEN = "ci-chosen-root-token-0123456789";

async function refusal(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const r = await runSvc(["lite", "--port", "0", "--in-memory", ...args], { timeoutMs: 30_000 });
  return { code: r.code, stderr: r.stderr };
}

describe("a secret file the user points lite at", () => {
  it("--root-token-file readable or writable by others is refused at start, with the fix and without the token", async () => {
    const file = join(scratchDir("svc-chosen-"), "token");
    writeFileSync(file, `${TOKEN}\n`);
    for (const mode of [0o644, 0o604, 0o620, 0o660]) {
      chmodSync(file, mode);
      const r = await refusal(["--root-token-file", file]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`refusing --root-token-file ${file}`);
      expect(r.stderr).toContain(`chmod 600 ${file}`);
      expect(r.stderr).not.toContain(TOKEN);
    }
    chmodSync(file, 0o600);
    const lite = await startLite({ inMemory: true, args: ["--root-token-file", file] });
    try {
      expect(lite.token).toBe(TOKEN);
      expect((await liteClient(lite).call("GET", "/v1/basins")).status).toBe(200);
    } finally {
      await lite.stop();
    }
  });

  // Only root can make a file root's: the group-readable case runs where the tests run as root.
  it.runIf(process.getuid?.() === 0)(
    "a root-owned --root-token-file readable by its group only (0640) is used",
    async () => {
      const file = join(scratchDir("svc-chosen-"), "token");
      writeFileSync(file, `${TOKEN}\n`, { mode: 0o640 });
      const lite = await startLite({ inMemory: true, args: ["--root-token-file", file] });
      try {
        expect(lite.token).toBe(TOKEN);
      } finally {
        await lite.stop();
      }
      chmodSync(file, 0o644);
      expect((await refusal(["--root-token-file", file])).code).toBe(2);
    },
  );

  it("a pipe (bash's <(…)) is read as it is: nothing of it is on disk", async () => {
    const child = spawn(
      "bash",
      [
        "-c",
        `exec "${process.execPath}" "${SVC_BIN}" lite --in-memory --port 0 --root-token-file <(printf '%s\\n' ${TOKEN})`,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    try {
      let out = "";
      const token = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          const m = /^export SVC_ACCESS_TOKEN=(.*)$/m.exec(out);
          if (m) resolve(m[1]!);
        });
        child.on("exit", (code) => reject(new Error(`svc lite exited ${code}`)));
      });
      expect(token).toBe(TOKEN);
    } finally {
      child.kill();
    }
  });

  it("--tls-key readable by others is refused at start, and never printed", async () => {
    const dir = scratchDir("svc-chosen-");
    const material = selfSigned("127.0.0.1", SETTINGS.tlsSelfValidMs.default);
    writeFileSync(join(dir, "cert.pem"), material.cert);
    writeFileSync(join(dir, "key.pem"), material.key, { mode: 0o644 });
    chmodSync(join(dir, "key.pem"), 0o644);
    const r = await refusal(["--tls-cert", join(dir, "cert.pem"), "--tls-key", join(dir, "key.pem")]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`refusing the TLS key ${join(dir, "key.pem")}`);
    expect(r.stderr).not.toContain("PRIVATE KEY");
  });
});
