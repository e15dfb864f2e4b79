/**
 * svc lite with TLS (issue 15): `--tls-self` makes a self-signed certificate at start and
 * prints its fingerprint; HTTP/1.1 and HTTP/2 (ALPN) share the one port; the printed
 * endpoints are https://. svc works against it with --insecure (unary and sessions) and
 * fails clearly without.
 */
import { connect } from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { startLite, type Lite } from "../helpers/lite.js";

let lite: Lite;
let env: Record<string, string>;

beforeAll(async () => {
  lite = await startLite({ args: ["--tls-self"] });
  env = { SVC_ACCOUNT_ENDPOINT: lite.url, SVC_BASIN_ENDPOINT: lite.url, SVC_ACCESS_TOKEN: lite.token };
});
afterAll(async () => { await lite?.stop(); });

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
