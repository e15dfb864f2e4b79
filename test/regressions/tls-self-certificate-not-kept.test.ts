/**
 * Bug (user trial): `svc lite --tls-self` kept its certificate nowhere and made a new one at
 * every start, so a user could neither trust it (NODE_EXTRA_CA_CERTS needs a file) nor pin its
 * fingerprint: every restart broke every client that had.
 *
 * Now, with a data dir, the certificate and its key are kept there (`tls-self-cert.pem`,
 * `tls-self-key.pem`, 0600) and used again at every start while they are a pair, valid for 30
 * more days and for the listen host; the log names the file. svc trusts it through
 * NODE_EXTRA_CA_CERTS without --insecure, across restarts. A key that is not the owner's alone
 * is refused like the root token; without a data dir (--in-memory) the log says the
 * certificate is kept nowhere and is new at every start.
 */
import { X509Certificate } from "node:crypto";
import { chmodSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SETTINGS } from "../../src/lite/option-table.js";
import { selfSigned } from "../../src/lite/tls-cert.js";
import { runSvc } from "../helpers/cli.js";
import { type Lite, spawnLite, startLite } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";

/** The first whole log line matching `pattern` (waits for its line break: a loaded machine may deliver a line late). */
async function logged(lite: Lite, pattern: RegExp): Promise<string> {
  const line = new RegExp(`${pattern.source}[^\\n]*\\n`);
  for (let i = 0; i < 750 && !line.test(lite.stderr()); i++) await new Promise((r) => setTimeout(r, 20));
  const found = line.exec(lite.stderr())?.[0];
  if (found === undefined) throw new Error(`no log line matching ${pattern} within 15 s; stderr:\n${lite.stderr()}`);
  return found.trimEnd();
}

const fingerprintIn = async (lite: Lite): Promise<string> =>
  (await logged(lite, /SHA-256 fingerprint \S+/)).split(" ").pop()!;

describe("svc lite --tls-self keeps its certificate in the data dir", () => {
  it("writes it, names it in the log, reuses it after a restart, and svc trusts it through NODE_EXTRA_CA_CERTS", async () => {
    const dir = scratchDir("svc-tls-kept-");
    const certFile = join(dir, "tls-self-cert.pem");
    const keyFile = join(dir, "tls-self-key.pem");
    const lite = await startLite({ dataDir: dir, args: ["--tls-self"] });
    try {
      expect(await logged(lite, /TLS with .*/)).toContain(
        `a self-signed certificate made now and kept in ${certFile} (clients trust it with NODE_EXTRA_CA_CERTS=${certFile}`,
      );
      const first = await fingerprintIn(lite);
      expect(new X509Certificate(readFileSync(certFile)).fingerprint256).toBe(first);
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      expect(lite.stderr()).not.toContain("PRIVATE KEY");

      await lite.stop();
      await lite.restart();
      expect(await logged(lite, /TLS with .*/)).toContain(`the self-signed certificate kept in ${certFile}`);
      expect(await fingerprintIn(lite)).toBe(first);
      const env = { SVC_ACCOUNT_ENDPOINT: lite.url, SVC_BASIN_ENDPOINT: lite.url, SVC_ACCESS_TOKEN: lite.token };
      const trusted = await runSvc(["basin", "create", "tls-kept"], { env: { ...env, NODE_EXTRA_CA_CERTS: certFile } });
      expect(trusted.code, trusted.stderr).toBe(0);
    } finally {
      await lite.stop();
    }
  });

  it("makes a new one when the kept key is not the certificate's", async () => {
    const dir = scratchDir("svc-tls-kept-");
    const lite = await startLite({ dataDir: dir, args: ["--tls-self"] });
    const first = await fingerprintIn(lite);
    await lite.stop();
    writeFileSync(join(dir, "tls-self-key.pem"), selfSigned("127.0.0.1", SETTINGS.tlsSelfValidMs.default).key, {
      mode: 0o600,
    });
    await lite.restart();
    try {
      expect(await logged(lite, /TLS with .*/)).toContain("a self-signed certificate made now");
      const second = await fingerprintIn(lite);
      expect(second).not.toBe(first);
      expect(new X509Certificate(readFileSync(join(dir, "tls-self-cert.pem"))).fingerprint256).toBe(second);
    } finally {
      await lite.stop();
    }
  });

  it("refuses a kept key that others can read", async () => {
    const dir = scratchDir("svc-tls-kept-");
    const lite = await startLite({ dataDir: dir, args: ["--tls-self"] });
    await lite.stop();
    chmodSync(join(dir, "tls-self-key.pem"), 0o644);
    const err = await spawnLite(["--port", "0", "--data-dir", dir, "--tls-self"]).then(
      async (s) => {
        s.child.kill("SIGKILL");
        await s.exited;
        return "started";
      },
      (e: Error) => e.message,
    );
    expect(err).toMatch(/exited \(1\)/);
    expect(err).toContain(
      `refusing ${join(dir, "tls-self-key.pem")}: the TLS key file is not secret: others may read or write it (mode 0644)`,
    );
  });

  it("says that the certificate is kept nowhere with --in-memory", async () => {
    const lite = await startLite({ inMemory: true, args: ["--tls-self"] });
    try {
      expect(await logged(lite, /TLS with .*/)).toContain(
        "a self-signed certificate made now and kept nowhere (no data dir: a new one, with a new fingerprint, at every start",
      );
    } finally {
      await lite.stop();
    }
  });
});
