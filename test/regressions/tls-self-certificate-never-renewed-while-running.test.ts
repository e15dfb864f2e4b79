/**
 * Bug: `svc lite --tls-self` looked at its certificate only at start (a new one when less than
 * 30 days were left), so a lite that kept running served the same certificate past its end:
 * every client then failed the handshake (certificate expired) until someone restarted lite.
 *
 * Now a running lite looks every hour and, once less than 30 days are left, makes a new one,
 * keeps it in the data dir and serves it to new connections; the log gives the new
 * fingerprint. Here the certificate lives 8 s and is renewed with 4 s left, looked at every
 * 200 ms (SVC_LITE_TLS_SELF_* test knobs).
 */
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { connect } from "node:tls";
import { describe, expect, it } from "vitest";
import { type Lite, startLite } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";

const env = {
  SVC_LITE_TLS_SELF_VALID_MS: "8000",
  SVC_LITE_TLS_SELF_RENEW_MS: "4000",
  SVC_LITE_TLS_SELF_CHECK_MS: "200",
};

/** The fingerprint of the certificate lite serves to a new connection. */
function served(lite: Lite): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(
      { host: "127.0.0.1", port: lite.port, rejectUnauthorized: false, ALPNProtocols: ["http/1.1"] },
      () => {
        resolve(socket.getPeerX509Certificate()!.fingerprint256);
        socket.end();
      },
    );
    socket.on("error", reject);
  });
}

async function logLine(lite: Lite, pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
  for (let waited = 0; waited < timeoutMs; waited += 50) {
    const m = pattern.exec(lite.stderr());
    if (m) return m;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no log line ${pattern} within ${timeoutMs} ms:\n${lite.stderr()}`);
}

describe("a running svc lite --tls-self", () => {
  it("renews its certificate before the end, keeps the new one in the data dir and serves it", async () => {
    const dir = scratchDir("svc-tls-renew-");
    const lite = await startLite({ dataDir: dir, args: ["--tls-self"], env });
    try {
      const first = (await logLine(lite, /SHA-256 fingerprint (\S+)/, 5_000))[1]!;
      expect(await served(lite)).toBe(first);
      const renewed = await logLine(
        lite,
        /TLS: the self-signed certificate was renewed .* and kept in (\S+); new SHA-256 fingerprint (\S+)/,
        8_000,
      );
      expect(renewed[1]).toBe(join(dir, "tls-self-cert.pem"));
      const next = renewed[2]!;
      expect(next).not.toBe(first);
      expect(await served(lite)).toBe(next);
      expect(new X509Certificate(readFileSync(join(dir, "tls-self-cert.pem"))).fingerprint256).toBe(next);
      expect(lite.stderr()).not.toContain("PRIVATE KEY");
    } finally {
      await lite.stop();
    }
  });

  it("without a data dir, serves a new one kept nowhere", async () => {
    const lite = await startLite({ inMemory: true, args: ["--tls-self"], env });
    try {
      const first = (await logLine(lite, /SHA-256 fingerprint (\S+)/, 5_000))[1]!;
      const renewed = await logLine(
        lite,
        /TLS: the self-signed certificate was renewed \(valid to [^)]*\); new SHA-256 fingerprint (\S+)/,
        8_000,
      );
      expect(renewed[1]).not.toBe(first);
      expect(await served(lite)).toBe(renewed[1]);
    } finally {
      await lite.stop();
    }
  });
});
