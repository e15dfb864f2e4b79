/**
 * `svc ping` against real servers: lite with its root token, an issued token scoped to a few
 * reads, a refused token, no token, lite with --no-auth, nothing listening, and an HTTP server
 * that is not this service. The built bin/svc as a child process.
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { type Lite, startLite } from "../helpers/lite.js";
import { type DataEnv, dataEnv } from "./cli-data-setup.js";

let d: DataEnv;
let open: Lite;
let notService: Server;
let notServiceUrl: string;
beforeAll(async () => {
  [d, open] = await Promise.all([dataEnv(), startLite({ inMemory: true, args: ["--no-auth"] })]);
  notService = createServer((_req, res) => {
    res.writeHead(404, { "content-type": "text/html" });
    res.end("<h1>Not Found</h1>");
  });
  await new Promise<void>((r) => notService.listen(0, "127.0.0.1", r));
  notServiceUrl = `http://127.0.0.1:${(notService.address() as { port: number }).port}`;
}, 60_000);
afterAll(async () => {
  await Promise.all([d?.stop(), open?.stop(), new Promise((r) => notService?.close(r))]);
});

const at = (url: string, token?: string) => ({
  SVC_ACCOUNT_ENDPOINT: url,
  SVC_BASIN_ENDPOINT: url,
  SVC_ACCESS_TOKEN: token,
  SVC_RETRIES: "0",
});

interface Report {
  server: { ping_status: number; lite: boolean; version: string | null; dialect: string | null; dialect_asked: string };
  auth_required: boolean | null;
  token: { configured: boolean; source: string | null; accepted: boolean | null; kind: string | null };
  access: {
    operation: string;
    resource: string | null;
    allowed: boolean | null;
    status: number;
    code: string | null;
  }[];
  not_probed: string[];
  latency_ms: {
    probe: string;
    first: number;
    count: number;
    min: number;
    p50: number;
    max: number;
    samples: number[];
  } | null;
}

describe("svc ping", () => {
  it("lite with its root token: who answers, the token's kind, and latency over -n round trips", async () => {
    const version = (await runSvc(["--version"])).stdout.trim();
    const r = await d.svc(["ping", "-n", "7", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const rep = JSON.parse(r.stdout) as Report;
    expect(rep.server).toEqual({ ping_status: 200, lite: true, version, dialect: "svc", dialect_asked: "svc" });
    expect(rep.auth_required).toBe(true);
    expect(rep.token).toEqual({ configured: true, source: "env SVC_ACCESS_TOKEN", accepted: true, kind: "lite-root" });
    expect(rep.access.map((a) => [a.operation, a.allowed])).toEqual([
      ["list-basins", true],
      ["list-access-tokens", true],
    ]);
    const l = rep.latency_ms!;
    expect(l.count).toBe(7);
    expect(l.samples).toHaveLength(7);
    expect(l.min).toBeGreaterThan(0);
    expect(l.min).toBeLessThanOrEqual(l.p50);
    expect(l.p50).toBeLessThanOrEqual(l.max);
    expect(l.max).toBe(Math.max(...l.samples));
    const text = await d.svc(["ping", "-n", "2"]);
    expect(text.stdout).toMatch(new RegExp(`^server +svc lite ${version.replaceAll(".", "\\.")} · dialect svc$`, "m"));
    expect(text.stdout).toMatch(
      /^token +accepted: svc lite's root token, which may do everything \(from env SVC_ACCESS_TOKEN\)$/m,
    );
    expect(text.stdout).toMatch(/^latency +GET \/ping × 2: min [\d.]+ ms, p50 [\d.]+ ms, max [\d.]+ ms/m);
    expect(text.stderr).toBe("");
  });

  it("an issued token: what it may read, probed on the basin and stream given", async () => {
    const uri = await d.newStream("ping");
    const created = await d.svc([
      "token",
      "create",
      `ping-${Date.now()}`,
      "--basins-exact",
      d.basin,
      "--streams-prefix",
      "",
      "--ops",
      "list-streams,read",
    ]);
    expect(created.code, created.stderr).toBe(0);
    const r = await d.svc(["ping", uri, "-n", "1", "--json"], { env: { SVC_ACCESS_TOKEN: created.stdout.trim() } });
    expect(r.code, r.stderr).toBe(0);
    const rep = JSON.parse(r.stdout) as Report;
    expect(rep.token).toMatchObject({ accepted: true, kind: "lite-issued" });
    expect(Object.fromEntries(rep.access.map((a) => [`${a.operation} ${a.resource ?? ""}`.trim(), a.allowed]))).toEqual(
      {
        "list-basins": false,
        "list-access-tokens": false,
        [`get-basin-config svc://${d.basin}`]: false,
        [`list-streams svc://${d.basin}`]: true,
        [`get-stream-config ${uri}`]: false,
        [`check-tail ${uri}`]: false,
        [`read ${uri}`]: true,
      },
    );
    expect(rep.access.find((a) => a.operation === "list-basins")).toMatchObject({
      status: 403,
      code: "permission_denied",
    });
    expect(rep.not_probed.join("\n")).toMatch(/writes .* not probed: none can be tried without an effect/);
    const text = await d.svc(["ping", uri, "-n", "1"], { env: { SVC_ACCESS_TOKEN: created.stdout.trim() } });
    expect(text.stdout).toContain("✗ list-basins (403 permission_denied)");
    expect(text.stdout).toContain(`✓ read ${uri}`);
  });

  it("a refused token: the report, then exit 3 with the auth hint", async () => {
    const r = await runSvc(["ping", "-n", "1"], { env: at(d.lite.url, "not-a-token") });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^token +REJECTED \(from env SVC_ACCESS_TOKEN\)$/m);
    expect(r.stderr).toMatch(/^error: Failed to ping http:\/\/127\.0\.0\.1:\d+: .*\(401 authn\)$/m);
    expect(r.stderr).toContain("hint: authentication failed: check the access token from env SVC_ACCESS_TOKEN");
    expect(r.stdout + r.stderr).not.toContain("not-a-token");
  });

  it("no token, where one is required: exit 3", async () => {
    const r = await runSvc(["ping", "-n", "1", "--json"], { env: at(d.lite.url) });
    expect(r.code).toBe(3);
    expect((JSON.parse(r.stdout) as Report).token).toEqual({
      configured: false,
      source: null,
      accepted: null,
      kind: null,
    });
    expect(r.stderr).toContain("no access token was configured");
  });

  it("lite with --no-auth: tokens are not checked", async () => {
    const r = await runSvc(["ping", "-n", "1", "--json"], { env: at(open.url, "anything") });
    expect(r.code, r.stderr).toBe(0);
    const rep = JSON.parse(r.stdout) as Report;
    expect(rep.auth_required).toBe(false);
    expect(rep.token).toMatchObject({ configured: true, accepted: null, kind: null });
    expect((await runSvc(["ping", "-n", "1"], { env: at(open.url, "anything") })).stdout).toMatch(
      /^token +not checked by this server/m,
    );
  });

  it("nothing listening: exit 6 with the connection hint", async () => {
    const r = await runSvc(["ping"], { env: at("http://127.0.0.1:9", "t") });
    expect(r.code).toBe(6);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^error: Failed to ping http:\/\/127\.0\.0\.1:9: /m);
    expect(r.stderr).toContain("hint: is the server at http://127.0.0.1:9 (from env SVC_ACCOUNT_ENDPOINT) running");
  });

  it("a server that is not this service: not lite, then exit 2 (a configuration to fix) with the endpoint hint", async () => {
    const r = await runSvc(["ping", "-n", "1"], { env: at(notServiceUrl, "t") });
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(
      /^server +not svc lite \(GET \/ping: 404, no svc-lite-version header\); version unknown · dialect unknown \(asked in svc; no answer told\)$/m,
    );
    expect(r.stdout).toMatch(/\? list-basins: could not tell \(404 not_the_service\)/);
    expect(r.stderr).toContain("answered as another web server, not as the service: check the endpoint");
  });
});
