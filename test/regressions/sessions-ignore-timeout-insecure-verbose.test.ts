/**
 * Sessions went around the client's one road to the network:
 * - `--timeout 2s --retries 0` did not bound them: `svc append` against a closed port took
 *   30 s, against a server that accepts and never answers 32 s (exit 75); `svc read -n 1`
 *   took 12 s and 34 s;
 * - `--insecure` was ignored (`http2.connect` got no TLS options), so sessions to an h2
 *   server with a self-signed certificate failed with "self-signed certificate";
 * - `-v` logged nothing about sessions.
 * Each case runs the built bin/svc as a child process.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import tls from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SvcClient } from "../../src/client/client.js";
import { runSvc } from "../helpers/cli.js";
import { freePort, type Lite, startLite } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";

const TOKEN = "issue-11-secret-token";
const closers: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of closers.reverse()) await c();
});

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return (server.address() as net.AddressInfo).port;
}

/** A port nothing listens on. */
const closedPort = freePort;

/** Accepts connections and never answers a byte. */
async function silentServer(): Promise<number> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on("error", () => undefined);
  });
  const port = await listen(server);
  closers.push(() => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((r) => server.close(() => r()));
  });
  return port;
}

function envFor(url: string, token = TOKEN): Record<string, string> {
  return { SVC_ACCOUNT_ENDPOINT: url, SVC_BASIN_ENDPOINT: url, SVC_ACCESS_TOKEN: token };
}

async function timed(args: string[], env: Record<string, string>, stdin?: string) {
  const started = Date.now();
  const r = await runSvc(args, { env, stdin, timeoutMs: 20_000 });
  return { ...r, ms: Date.now() - started };
}

const BOUND = ["--timeout", "2s", "--retries", "0"];

describe("sessions honour --timeout and --retries (child process)", () => {
  it("append session to a closed port: exit 6 within 3 s, saying it could not connect", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const r = await timed(["append", "svc://issue-11-road/s", "--transport", "session", ...BOUND], envFor(url), "x\n");
    expect(r.code, r.stderr).toBe(6);
    expect(r.ms).toBeLessThan(3000);
    expect(r.stderr).toMatch(/cannot connect to http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
  });

  it("read session to a closed port: exit 6 within 3 s, saying it could not connect", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const r = await timed(["read", "svc://issue-11-road/s", "-s", "0", "-n", "1", ...BOUND], envFor(url));
    expect(r.code, r.stderr).toBe(6);
    expect(r.ms).toBeLessThan(3000);
    expect(r.stderr).toMatch(/cannot connect/);
  });

  it("append session to a silent server: exit 6 within 3 s, saying nothing was appended", async () => {
    const url = `http://127.0.0.1:${await silentServer()}`;
    const r = await timed(["append", "svc://issue-11-road/s", "--transport", "session", ...BOUND], envFor(url), "x\n");
    expect(r.code, r.stderr).toBe(6);
    expect(r.ms).toBeLessThan(3000);
    expect(r.stderr).toMatch(/no response from http:\/\/127\.0\.0\.1:\d+ within 2000 ms/);
    expect(r.stderr).toMatch(/nothing was appended/);
  });

  it("read session to a silent server: exit 6 within 3 s, saying the server did not answer", async () => {
    const url = `http://127.0.0.1:${await silentServer()}`;
    const r = await timed(["read", "svc://issue-11-road/s", "-s", "0", "-n", "1", ...BOUND], envFor(url));
    expect(r.code, r.stderr).toBe(6);
    expect(r.ms).toBeLessThan(3000);
    expect(r.stderr).toMatch(/no response from http:\/\/127\.0\.0\.1:\d+ within 2000 ms/);
  });
});

describe("sessions over TLS (HTTP/2, self-signed certificate) and -v", () => {
  let lite: Lite;
  let tlsUrl: string;
  const basin = `issue11-${process.pid}`;

  beforeAll(async () => {
    lite = await startLite();
    closers.push(() => lite.stop().then(() => undefined));
    const client = new SvcClient({ accountEndpoint: lite.url, basinEndpoint: lite.url, accessToken: lite.token });
    await client.basins.create(basin);
    await client.basin(basin).streams.create("s");
    await client.close();
    // A TLS front for lite with a certificate made now; it offers h2 and http/1.1 by ALPN and
    // forwards the decrypted bytes (lite tells HTTP/2 from HTTP/1.1 by the preface).
    const dir = scratchDir("svc-tls-");
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
      ],
      { stdio: "ignore" },
    );
    const sockets = new Set<net.Socket>();
    const front = tls.createServer(
      {
        key: readFileSync(join(dir, "key.pem")),
        cert: readFileSync(join(dir, "cert.pem")),
        ALPNProtocols: ["h2", "http/1.1"],
      },
      (secure) => {
        const plain = net.connect(lite.port, "127.0.0.1");
        sockets.add(secure).add(plain);
        secure.pipe(plain).pipe(secure);
        const end = (): void => {
          secure.destroy();
          plain.destroy();
        };
        secure.on("error", end).on("close", end);
        plain.on("error", end).on("close", end);
      },
    );
    front.on("tlsClientError", () => undefined);
    tlsUrl = `https://127.0.0.1:${await listen(front)}`;
    closers.push(() => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => front.close(() => r()));
    });
  });

  it("without --insecure a session fails at once with a clear message (exit 6)", async () => {
    const append = await runSvc(["append", `svc://${basin}/s`, "--retries", "0"], {
      env: envFor(tlsUrl, lite.token),
      stdin: "x\n",
    });
    expect(append.code, append.stderr).toBe(6);
    expect(append.stderr).toMatch(/TLS certificate is not trusted \(self-signed certificate/);
    expect(append.stderr).toMatch(/--insecure/);
    const read = await runSvc(["read", `svc://${basin}/s`, "-s", "0", "-n", "1", "--retries", "0"], {
      env: envFor(tlsUrl, lite.token),
    });
    expect(read.code, read.stderr).toBe(6);
    expect(read.stderr).toMatch(/TLS certificate is not trusted/);
  });

  it("with --insecure append and read sessions work over h2 + TLS (and the one-request shortcuts over HTTPS)", async () => {
    const append = await runSvc(["append", `svc://${basin}/s`, "--insecure", "--transport", "session"], {
      env: envFor(tlsUrl, lite.token),
      stdin: "over-tls-1\nover-tls-2\n",
    });
    expect(append.code, append.stderr).toBe(0);
    const shortcut = await runSvc(["append", `svc://${basin}/s`, "--insecure"], {
      env: envFor(tlsUrl, lite.token),
      stdin: "over-tls-3\n",
    });
    expect(shortcut.code, shortcut.stderr).toBe(0);
    const read = await runSvc(
      ["read", `svc://${basin}/s`, "-s", "0", "-n", "3", "--insecure", "--transport", "session"],
      { env: envFor(tlsUrl, lite.token) },
    );
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toBe("over-tls-1\nover-tls-2\nover-tls-3\n");
    const unary = await runSvc(["read", `svc://${basin}/s`, "-s", "0", "-n", "3", "--insecure"], {
      env: envFor(tlsUrl, lite.token),
    });
    expect(unary.stdout).toBe(read.stdout);
  });

  it("-v logs each session request with its status and latency, never the token", async () => {
    const append = await runSvc(["append", `svc://${basin}/s`, "-v", "--transport", "session"], {
      env: envFor(lite.url, lite.token),
      stdin: "logged\n",
    });
    expect(append.code, append.stderr).toBe(0);
    expect(append.stderr).toMatch(
      /POST http:\/\/127\.0\.0\.1:\d+\/v1\/streams\/s\/records \(session\) → 200 in [\d.]+ ms/,
    );
    const read = await runSvc(["read", `svc://${basin}/s`, "-s", "0", "-n", "1", "-v", "--transport", "session"], {
      env: envFor(lite.url, lite.token),
    });
    expect(read.code, read.stderr).toBe(0);
    expect(read.stderr).toMatch(
      /GET http:\/\/127\.0\.0\.1:\d+\/v1\/streams\/s\/records\?seq_num=0&count=1 \(session\) → 200/,
    );
    for (const out of [append.stderr, read.stderr]) expect(out).not.toContain(lite.token);
  });

  it("by default, an input of one small batch and a read of ≤ 1000 records that stops are one unary request each; more goes by session", async () => {
    const env = envFor(lite.url, lite.token);
    const one = await runSvc(["append", `svc://${basin}/s`, "-v"], { env, stdin: "one\n" });
    expect(one.code, one.stderr).toBe(0);
    expect(one.stderr).toMatch(/POST http:\/\/127\.0\.0\.1:\d+\/v1\/streams\/s\/records → 200/);
    expect(one.stderr).not.toContain("(session)");
    // Over 64 KiB: several batches' worth is not a one-shot; a session carries it.
    const big = await runSvc(["append", `svc://${basin}/s`, "-v", "--max-batch-bytes", "16KiB"], {
      env,
      stdin: "y".repeat(1000).concat("\n").repeat(80),
    });
    expect(big.code, big.stderr).toBe(0);
    expect(big.stderr).toContain("(session)");
    // --ack-timeout asks for a session's ack bound: no shortcut.
    const bounded = await runSvc(["append", `svc://${basin}/s`, "-v", "--ack-timeout", "10s"], {
      env,
      stdin: "bounded\n",
    });
    expect(bounded.stderr).toContain("(session)");
    const read = await runSvc(["read", `svc://${basin}/s`, "-s", "0", "-n", "3", "-v"], { env });
    expect(read.code, read.stderr).toBe(0);
    expect(read.stderr).not.toContain("(session)");
    const following = await runSvc(["read", `svc://${basin}/s`, "-s", "0", "-n", "2000", "-e", "-v"], { env });
    expect(following.code, following.stderr).toBe(0);
    expect(following.stderr).toContain("(session)");
    // Both ways give the same records.
    expect(read.stdout).toBe(following.stdout.split("\n").slice(0, 3).join("\n") + "\n");
  });
});
