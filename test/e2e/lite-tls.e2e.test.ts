/**
 * svc lite with TLS: `--tls-self` makes a self-signed certificate at start and
 * prints its fingerprint; HTTP/1.1 and HTTP/2 (ALPN) share the one port; the printed
 * endpoints are https://. svc works against it with --insecure (unary and sessions) and
 * fails clearly without.
 */
import { writeFileSync } from "node:fs";
import { connect } from "node:http2";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SETTINGS } from "../../src/lite/option-table.js";
import { selfSigned } from "../../src/lite/tls-cert.js";
import { runSvc } from "../helpers/cli.js";
import { type Lite, startLite } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";

let lite: Lite;
let env: Record<string, string>;

beforeAll(async () => {
  lite = await startLite({ args: ["--tls-self"] });
  env = { SVC_ACCOUNT_ENDPOINT: lite.url, SVC_BASIN_ENDPOINT: lite.url, SVC_ACCESS_TOKEN: lite.token };
});
afterAll(async () => {
  await lite?.stop();
});

describe("svc lite --tls-self", () => {
  it("prints https:// endpoints and the certificate's SHA-256 fingerprint", async () => {
    expect(lite.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    for (let i = 0; i < 100 && !/fingerprint/.test(lite.stderr()); i++) await new Promise((r) => setTimeout(r, 20));
    expect(lite.stderr()).toMatch(/SHA-256 fingerprint ([0-9A-F]{2}:){31}[0-9A-F]{2}/);
  });

  it("refuses an untrusted certificate with a clear message (exit 6), unary and session", async () => {
    const list = await runSvc(["basin", "list"], { env });
    expect(list.code).toBe(6);
    expect(list.stderr).toMatch(/TLS certificate is not trusted.*--insecure/);
    const read = await runSvc(["read", "svc://any-basin/s", "-s", "0", "-n", "1"], { env });
    expect(read.code).toBe(6);
    expect(read.stderr).toMatch(/TLS certificate is not trusted/);
  });

  it("works with --insecure: management, an append session and a read session", async () => {
    const ins = { env: { ...env, SVC_INSECURE: "1" } };
    expect((await runSvc(["basin", "create", "tls-basin"], ins)).code).toBe(0);
    expect((await runSvc(["stream", "create", "svc://tls-basin/s"], ins)).code).toBe(0);
    const app = await runSvc(["append", "svc://tls-basin/s", "--insecure"], { env, stdin: "one\ntwo\n" });
    expect(app.code, app.stderr).toBe(0);
    const read = await runSvc(["read", "svc://tls-basin/s", "-s", "0", "-n", "2", "--insecure"], { env });
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toBe("one\ntwo\n");
  });

  it("speaks HTTP/2 by ALPN on the same port", async () => {
    const session = connect(lite.url, { rejectUnauthorized: false });
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const req = session.request({ ":path": "/health" });
        req.on("response", (h) => resolve(Number(h[":status"])));
        req.on("error", reject);
        req.end();
      });
      expect(status).toBe(200);
      expect(session.alpnProtocol).toBe("h2");
    } finally {
      session.close();
    }
  });
});

describe("svc lite --tls-cert/--tls-key", () => {
  it("serves the given certificate (its fingerprint printed), and svc trusts it through NODE_EXTRA_CA_CERTS without --insecure", async () => {
    const material = selfSigned("127.0.0.1", SETTINGS.tlsSelfValidMs.default);
    const dir = scratchDir("svc-tls-files-");
    const cert = join(dir, "cert.pem");
    const key = join(dir, "key.pem");
    writeFileSync(cert, material.cert);
    writeFileSync(key, material.key, { mode: 0o600 });
    const own = await startLite({ args: ["--tls-cert", cert, "--tls-key", key] });
    try {
      expect(own.url).toMatch(/^https:\/\//);
      for (let i = 0; i < 100 && !own.stderr().includes(material.fingerprint); i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(own.stderr()).toContain(material.fingerprint);
      const ownEnv = { SVC_ACCOUNT_ENDPOINT: own.url, SVC_BASIN_ENDPOINT: own.url, SVC_ACCESS_TOKEN: own.token };
      expect((await runSvc(["basin", "list"], { env: ownEnv })).code).toBe(6);
      const trusted = await runSvc(["basin", "create", "tls-files"], { env: { ...ownEnv, NODE_EXTRA_CA_CERTS: cert } });
      expect(trusted.code, trusted.stderr).toBe(0);
      expect(own.stderr()).not.toContain("PRIVATE KEY");
    } finally {
      await own.stop();
    }
  });

  it("a missing or unreadable key file is a one-line error at start, not a crash", async () => {
    const dir = scratchDir("svc-tls-files-");
    const r = await runSvc(
      ["lite", "--port", "0", "--in-memory", "--tls-cert", join(dir, "nope.pem"), "--tls-key", join(dir, "nope.key")],
      {},
    );
    expect(r.code).not.toBe(0);
    expect(
      r.stderr
        .trim()
        .split("\n")
        .filter((l) => l.startsWith("error")).length,
    ).toBe(1);
    expect(r.stderr).toMatch(/nope\.(pem|key)/);
  });
});
