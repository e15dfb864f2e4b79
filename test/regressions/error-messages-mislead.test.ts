/**
 * Bugs: messages that misled. With endpoints from the environment, a refused
 * connection still blamed the default lite address; a DNS failure asked "is the server
 * running?"; an endpoint that is not this service said only `HTTP 404 (404 http_404)`;
 * `svc lite` on a busy port said only EADDRINUSE; `SVC_TIMEOUT=abc` did not name the variable;
 * parse errors under `--json` had no JSON line; an invalid apply spec said "position 34";
 * `basin create --if-not-exists --retention 1d` on a basin with another retention said nothing;
 * answering "n" to a prompt exited 0; "1 records".
 */

import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";
import { runSvc } from "../helpers/cli.js";
import { ptyAvailable, runSvcInPty } from "../helpers/pty.js";
import { scratchDir } from "../helpers/scratch.js";

let d: DataEnv;
let notService: Server;
let notServiceUrl: string;
beforeAll(async () => {
  d = await dataEnv();
  notService = createServer((_req, res) => {
    res.writeHead(404, { "content-type": "text/html" });
    res.end("<h1>Not Found</h1>");
  });
  await new Promise<void>((r) => notService.listen(0, "127.0.0.1", r));
  notServiceUrl = `http://127.0.0.1:${(notService.address() as { port: number }).port}`;
}, 60_000);
afterAll(async () => {
  await d?.stop();
  await new Promise((r) => notService?.close(r));
});

const at = (url: string) => ({ SVC_ACCOUNT_ENDPOINT: url, SVC_BASIN_ENDPOINT: url, SVC_ACCESS_TOKEN: "t" });

describe("messages say what is true", () => {
  it("a refused connection names the endpoint in use and where it came from", async () => {
    const r = await runSvc(["basin", "list", "--retries", "0"], { env: at("http://127.0.0.1:9") });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(
      /hint: is the server at http:\/\/127\.0\.0\.1:9 \(from env SVC_ACCOUNT_ENDPOINT\) running/,
    );
    expect(r.stderr).not.toContain("4243");
  });

  it("a DNS failure says the host name does not resolve", async () => {
    const r = await runSvc(["basin", "list", "--retries", "0"], { env: at("http://no-such-host.invalid:4243") });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/the host name "no-such-host\.invalid" does not resolve \(DNS\)/);
    expect(r.stderr).not.toMatch(/is the server running/);
  });

  it("an endpoint that is not this service gets a hint", async () => {
    const r = await runSvc(["basin", "list"], { env: at(notServiceUrl) });
    // Since an answer that is not the service's is recognised as such (not-the-service-answer-in-doubt.test.ts):
    expect(r.stderr).toMatch(
      /hint: http:\/\/127\.0\.0\.1:\d+ \(from env SVC_ACCOUNT_ENDPOINT\) answered as another web server, not as the service: check the endpoint/,
    );
  });

  it("svc lite on a busy port names the port and suggests --port 0", async () => {
    const port = new URL(d.lite.url).port;
    const r = await runSvc(["lite", "--port", port, "--in-memory"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
    expect(r.stderr).toContain("--port 0");
  });

  it("SVC_TIMEOUT=abc names the variable", async () => {
    const r = await d.svc(["basin", "list"], { env: { SVC_TIMEOUT: "abc" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: SVC_TIMEOUT: invalid duration "abc"/);
  });

  it("a parse error under --json ends with the documented one-line JSON error", async () => {
    const r = await d.svc(["basin", "list", "--bogus", "--json"]);
    expect(r.code).toBe(2);
    const last = r.stderr.trim().split("\n").at(-1)!;
    expect(JSON.parse(last)).toEqual({
      error: { status: null, code: "usage", message: "unknown option '--bogus'", exit_code: 2 },
    });
  });

  it("an invalid apply spec is located by line and column", async () => {
    const spec = join(scratchDir("svc-msg-"), "spec.json");
    writeFileSync(spec, '{\n  "basins": [\n    {"name": "x",, }\n  ]\n}\n');
    const r = await d.svc(["apply", "-f", spec, "--dry-run"]);
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/at line 3, column 18/);
    expect(r.stderr).not.toMatch(/position/);
  });

  it("--if-not-exists on a basin with other settings warns and changes nothing", async () => {
    const basin = `msg-${Date.now().toString(36)}`;
    expect((await d.svc(["basin", "create", basin, "--retention", "7d"])).code).toBe(0);
    const r = await d.svc(["basin", "create", basin, "--if-not-exists", "--retention", "1d"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /! basin svc:\/\/msg-\w+ already exists with other settings, which were left unchanged: default_stream_config\.retention_policy\.age: 604800 \(asked: 86400\)\. Use --ensure/,
    );
    const same = await d.svc(["basin", "create", basin, "--if-not-exists", "--retention", "7d"]);
    expect(same.stderr).not.toMatch(/other settings/);
  });

  it('one record is "1 record"', async () => {
    const uri = await d.newStream("one");
    const r = await d.svc(["append", uri, "--acks", "text"], { stdin: "x\n" });
    expect(r.stderr).toMatch(/\(1 record\)/);
    expect(r.stderr).toMatch(/appended 1 record \(/);
    expect(r.stderr).not.toMatch(/\b1 records\b/);
  });

  it.skipIf(!ptyAvailable)("answering n to a prompt exits 1 and deletes nothing", async () => {
    const uri = await d.newStream("keep");
    const r = await runSvcInPty(["stream", "delete", uri], d.env, { input: { when: "[y/N]", text: "n\r" } });
    expect(r.screen.join("\n")).toMatch(/\[y\/N\]/);
    expect(r.screen.join("\n")).toMatch(/aborted; nothing deleted/);
    expect(r.code).toBe(1);
    expect((await d.svc(["stream", "get", uri])).code).toBe(0);
  });
});
