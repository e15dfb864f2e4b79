/**
 * Bug (user trial): with the endpoints pointing at a web server that is not the service (here
 * one that answers as Python's http.server does: an HTML page, 501 for POST, 404 for GET),
 * every error carried the raw HTML (14 lines), `svc append` reported "outcome unknown" (exit
 * 75) and `svc basin create` was retried as "unavailable" (exit 6), though a 501 from such a
 * server appended and created nothing.
 *
 * Expected: an answer that is not the service's (a body that is not a JSON object) is said so
 * in one line, with the page's title; it is not retried, an append is not in doubt, and the
 * exit code is 2 (a configuration to fix: the endpoint), as docs/exit-codes.md says. A proxy's
 * own page for a gateway status (502, 503, 504…) keeps that status's meaning (retried, exit 6),
 * cut to one line too.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";

const page = (code: number, message: string): string =>
  `<!DOCTYPE HTML>\n<html lang="en">\n    <head>\n        <meta charset="utf-8">\n        <title>Error response</title>\n    </head>\n    <body>\n        <h1>Error response</h1>\n        <p>Error code: ${code}</p>\n        <p>Message: ${message}.</p>\n        <p>Error code explanation: ${code} - Server does not support this operation.</p>\n    </body>\n</html>\n`;

let web: Server;
let proxy: Server;
let webUrl: string;
let proxyUrl: string;
let webRequests = 0;
let proxyRequests = 0;

async function listen(s: Server): Promise<string> {
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  web = createServer((req, res) => {
    webRequests++;
    req.resume();
    const code = req.method === "GET" ? 404 : 501;
    res.writeHead(code, { "content-type": "text/html;charset=utf-8" });
    res.end(page(code, code === 404 ? "File not found" : "Unsupported method ('POST')"));
  });
  proxy = createServer((req, res) => {
    proxyRequests++;
    req.resume();
    res.writeHead(503, { "content-type": "text/html" });
    res.end(
      "<html>\n<head><title>503 Service Temporarily Unavailable</title></head>\n<body>\n<center><h1>503</h1></center>\n</body>\n</html>\n",
    );
  });
  [webUrl, proxyUrl] = await Promise.all([listen(web), listen(proxy)]);
});
afterAll(async () => {
  await Promise.all([new Promise((r) => web?.close(r)), new Promise((r) => proxy?.close(r))]);
});

const at = (url: string) => ({ SVC_ACCOUNT_ENDPOINT: url, SVC_BASIN_ENDPOINT: url, SVC_ACCESS_TOKEN: "t" });

describe("an endpoint that is another web server", () => {
  it("append: not in doubt, one line, exit 2", async () => {
    const r = await runSvc(["append", "svc://my-basin-01/events"], { env: at(webUrl), stdin: "hello\n" });
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(
      `error: Failed to append svc://my-basin-01/events: the server at ${webUrl} is not the Stream Storage Service: it answered HTTP 501 with text/html: "Error response" (501 not_the_service)`,
    );
    expect(lines[1]).toContain("answered as another web server, not as the service: check the endpoint");
    expect(r.stderr).not.toContain("<");
    expect(r.stderr).not.toContain("unknown");
  });

  it("basin create: not retried, exit 2", async () => {
    const before = webRequests;
    const r = await runSvc(["basin", "create", "my-basin-01"], { env: at(webUrl) });
    expect(r.code).toBe(2);
    expect(webRequests - before).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(2);
  });

  it("basin list: exit 2, one line", async () => {
    const r = await runSvc(["basin", "list", "--json"], { env: at(webUrl) });
    expect(r.code).toBe(2);
    const json = JSON.parse(r.stderr.trim().split("\n").pop()!) as { error: { code: string; exit_code: number } };
    expect(json.error).toMatchObject({ code: "not_the_service", exit_code: 2 });
  });
});

describe("a proxy's own page for a gateway status", () => {
  it("keeps its meaning (retried, exit 6), in one line", async () => {
    const before = proxyRequests;
    const r = await runSvc(["basin", "list", "--retries", "1"], { env: at(proxyUrl) });
    expect(r.code).toBe(6);
    expect(proxyRequests - before).toBe(2);
    expect(r.stderr.split("\n")[0]).toBe(
      `error: Failed to list basins: the server at ${proxyUrl} answered HTTP 503 with text/html, not the service's JSON error (a proxy in front of it?): "503 Service Temporarily Unavailable" (503 http_503)`,
    );
  });
});
