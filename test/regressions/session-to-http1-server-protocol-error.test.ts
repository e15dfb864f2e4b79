/**
 * Bug (issue 45, item 6): sessions (read, append) against an endpoint that is not the service
 * failed with "connection to … failed: Protocol error (ERR_HTTP2_ERROR) (network)", retried
 * three times and exited 6 (an append over a session: 75, outcome unknown), with no hint; unary
 * commands against the same server said it is not the service (exit 2, a hint). An HTTP/1.1
 * server answers the HTTP/2 connection preface with an HTTP/1.1 response (400), which is what
 * sessions met behind a proxy that passes HTTP/1.1 only, though svc's unary requests work there.
 *
 * Fix: a protocol error on a connection whose server never sent its HTTP/2 SETTINGS (or a TLS
 * server offering no h2) is `not_the_service` (exit 2, not retried, nothing in doubt), said in
 * one line, with a hint naming `--transport unary` for an HTTP/1.1-only proxy; `svc append
 * --transport auto` goes unary there. The other way round, a server that speaks HTTP/2 only
 * answers a unary request with HTTP/2 frames: also `not_the_service`, where it was a parse
 * error, retried, exit 6.
 */
import { createServer, request, type Server } from "node:http";
import { createServer as createH2Server, type Http2Server } from "node:http2";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { createStreams, type Lite, startLite } from "../helpers/lite.js";

let lite: Lite;
let web: Server;
let proxy: Server;
let h2only: Http2Server;
let webUrl: string;
let proxyUrl: string;
let h2Url: string;
let webConnections = 0;
const BASIN = "http1-proxy-01";

async function listen(s: Server | Http2Server): Promise<string> {
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  lite = await startLite({ inMemory: true });
  await createStreams(lite, BASIN, ["s"]);
  // Another web server: an HTML 404 for everything.
  web = createServer((req, res) => {
    req.resume();
    res.writeHead(404, { "content-type": "text/html" });
    res.end("<html><head><title>404 Not Found</title></head><body>nginx</body></html>");
  });
  web.on("connection", () => webConnections++);
  // A reverse proxy to lite that speaks HTTP/1.1 only.
  const upstream = new URL(lite.url);
  proxy = createServer((req, res) => {
    const up = request(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on("error", () => res.destroy());
    req.pipe(up);
  });
  // A server that speaks HTTP/2 (prior knowledge) only.
  h2only = createH2Server((_req, res) => {
    res.writeHead(404, { "content-type": "text/html" });
    res.end("<title>h2 only</title>");
  });
  [webUrl, proxyUrl, h2Url] = await Promise.all([listen(web), listen(proxy), listen(h2only)]);
}, 30_000);
afterAll(async () => {
  await Promise.all([
    new Promise((r) => web?.close(r)),
    new Promise((r) => proxy?.close(r)),
    new Promise((r) => h2only?.close(r)),
  ]);
  web?.closeAllConnections();
  proxy?.closeAllConnections();
  await lite?.stop();
});

const at = (url: string, token = "t") => ({
  SVC_ACCOUNT_ENDPOINT: url,
  SVC_BASIN_ENDPOINT: url,
  SVC_ACCESS_TOKEN: token,
});

const NO_HTTP2 = "does not speak HTTP/2, which sessions need";
const HINT = "`svc read` and `svc append` work with --transport unary";

describe("a session against a server that speaks HTTP/1.1 only", () => {
  it("read: not the service, exit 2, not retried, a hint", async () => {
    const before = webConnections;
    const r = await runSvc(["read", "svc://my-basin-01/events", "-s", "0", "-e"], { env: at(webUrl) });
    expect(r.code, r.stderr).toBe(2);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(`the server at ${webUrl} ${NO_HTTP2}`);
    expect(lines[0]).toMatch(/\(not_the_service\)$/);
    expect(lines[1]).toContain(HINT);
    expect(r.stderr).not.toContain("ERR_HTTP2_ERROR");
    expect(webConnections - before).toBe(1);
  });

  it("append over a session: exit 2, not in doubt", async () => {
    const r = await runSvc(["append", "svc://my-basin-01/events", "--transport", "session"], {
      env: at(webUrl),
      stdin: "a\nb\n",
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(NO_HTTP2);
    expect(r.stderr).toContain(HINT);
    expect(r.stderr).not.toContain("unknown");
    const json = await runSvc(["read", "svc://my-basin-01/events", "-f", "--json"], { env: at(webUrl) });
    expect(JSON.parse(json.stderr.trim().split("\n").pop()!).error).toMatchObject({
      code: "not_the_service",
      exit_code: 2,
    });
  });

  it("behind an HTTP/1.1-only proxy: the hint's --transport unary works, and append --transport auto goes unary", async () => {
    const env = at(proxyUrl, lite.token);
    const uri = `svc://${BASIN}/s`;
    const session = await runSvc(["read", uri, "-s", "0", "-e"], { env });
    expect(session.code, session.stderr).toBe(2);
    expect(session.stderr).toContain(HINT);
    const auto = await runSvc(["append", uri, "--transport", "auto"], { env, stdin: "one\ntwo\n" });
    expect(auto.code, auto.stderr).toBe(0);
    const unary = await runSvc(["read", uri, "-s", "0", "-e", "--transport", "unary"], { env });
    expect(unary.code, unary.stderr).toBe(0);
    expect(unary.stdout).toBe("one\ntwo\n");
  });
});

describe("a unary request to a server that speaks HTTP/2 only", () => {
  it("is not the service: exit 2, not retried", async () => {
    const r = await runSvc(["basin", "list", "-v"], { env: at(h2Url) });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`the server at ${h2Url} does not speak HTTP/1.1`);
    expect(r.stderr).toContain("(not_the_service)");
    expect(r.stderr).not.toMatch(/retry \d/);
  });
});
