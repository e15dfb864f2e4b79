/**
 * The CLI under faults (docs/design/reliability.md, "The CLI under faults"), end to end through the
 * built bin/svc:
 *
 *   - the retry decision table: a scripted HTTP server answers each request with a given
 *     failure; we count the attempts that reach it and check the exit code. Appends retry only
 *     what provably had no effect (429, 502, 503 server_draining); 408, 500, 503 unavailable,
 *     504 and a reset after the request was sent are "outcome unknown" (exit 75, 1 attempt);
 *     reads (check-tail) retry those; other 4xx are definite and never retried;
 *   - `svc read … > /dev/full`: a one-line ENOSPC message and its hint, exit 1, no stack trace;
 *   - an ack that never comes (the proxy black-holes an append session): with --ack-timeout
 *     the CLI must give up with exit 75, never hang (skipped while the flag does not exist).
 *
 * `svc read | head -1` (200 runs) is in test/e2e/cli-data-pipe; SIGINT, read resume and drain
 * in the other files of this directory.
 */
import { execFileSync, spawn } from "node:child_process";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";
import { runSvc, SVC_BIN, tempHome } from "../helpers/cli.js";
import { type FaultProxy, startFaultProxy } from "../helpers/fault-proxy.js";
import { freePort } from "../helpers/free-port.js";

type Behaviour = { status: number; body: unknown } | "reset";

let server: http.Server;
let url = "";
let script: Behaviour[] = [];
let attempts = 0;

const OK_APPEND = {
  start: { seq_num: 0, timestamp: 0 },
  end: { seq_num: 1, timestamp: 0 },
  tail: { seq_num: 1, timestamp: 0 },
};
const OK_TAIL = { tail: { seq_num: 1, timestamp: 0 } };
const err = (status: number, code: string): Behaviour => ({ status, body: { code, message: `scripted ${code}` } });

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      attempts++;
      const b = script.shift();
      if (b === "reset") {
        req.socket.resetAndDestroy();
        return;
      }
      const ok = req.method === "POST" ? OK_APPEND : OK_TAIL;
      const { status, body } = b ?? { status: 200, body: ok };
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});

async function run(
  args: string[],
  behaviours: Behaviour[],
  stdin?: string,
  endpoint = url,
): Promise<{ code: number | null; attempts: number; stderr: string }> {
  script = [...behaviours];
  attempts = 0;
  const r = await runSvc(args, {
    env: { SVC_ACCOUNT_ENDPOINT: endpoint, SVC_BASIN_ENDPOINT: endpoint, SVC_ACCESS_TOKEN: "t" },
    stdin,
    timeoutMs: 30_000,
  });
  return { code: r.code, attempts, stderr: r.stderr };
}

const append = ["append", "svc://fault-basin/s", "--transport", "unary"];
const tail = ["check-tail", "svc://fault-basin/s"];
const always = (b: Behaviour): Behaviour[] => [b, b, b, b];

describe("retry decision table (svc append --transport unary, svc check-tail)", () => {
  it.each([
    ["429 rate_limited", err(429, "rate_limited")],
    ["502 hot_server", err(502, "hot_server")],
    ["503 server_draining", err(503, "server_draining")],
  ])("%s: both retry, then succeed (3 attempts, exit 0)", async (_name, b) => {
    expect(await run(append, [b, b], "x\n")).toMatchObject({ code: 0, attempts: 3 });
    expect(await run(tail, [b, b])).toMatchObject({ code: 0, attempts: 3 });
  });

  it.each([
    ["408 request_timeout", err(408, "request_timeout")],
    ["500 other", err(500, "other")],
    ["500 storage", err(500, "storage")],
    ["503 unavailable", err(503, "unavailable")],
    ["504 upstream_timeout", err(504, "upstream_timeout")],
    ["a reset after the request was sent", "reset" as const],
  ])("%s: append is not retried (exit 75), check-tail is (3 attempts)", async (_name, b) => {
    const a = await run(append, always(b), "x\n");
    expect(a, a.stderr).toMatchObject({ code: 75, attempts: 1 });
    expect(a.stderr.trim().split("\n").length, a.stderr).toBeLessThanOrEqual(3);
    expect(await run(tail, always(b))).toMatchObject({ code: 6, attempts: 3 });
  });

  it.each([
    ["400 bad_json", 2, err(400, "bad_json")],
    ["401 authn", 3, err(401, "authn")],
    ["403 permission_denied", 3, err(403, "permission_denied")],
    ["404 stream_not_found", 4, err(404, "stream_not_found")],
    ["409 resource_already_exists", 5, err(409, "resource_already_exists")],
    ["412 seq_num_mismatch", 5, { status: 412, body: { seq_num_mismatch: 7 } }],
    ["422 invalid", 2, err(422, "invalid")],
  ] as [string, number, Behaviour][])("%s: definite, never retried (exit %s)", async (_name, code, b) => {
    expect(await run(append, always(b), "x\n")).toMatchObject({ code, attempts: 1 });
    if (!("status" in (b as object)) || (b as { status: number }).status !== 412)
      expect(await run(tail, always(b))).toMatchObject({ code, attempts: 1 });
  });

  it("connection refused: unavailable (6), never outcome unknown", async () => {
    const port = await freePort();
    const r = await run(append, [], "x\n", `http://127.0.0.1:${port}`);
    expect(r.code, r.stderr).toBe(6);
  });
});

describe("svc against a real lite under faults", () => {
  let d: DataEnv;
  let proxy: FaultProxy;
  beforeAll(async () => {
    d = await dataEnv();
    proxy = await startFaultProxy(Number(new URL(d.lite.url).port));
  });
  afterAll(async () => {
    await proxy?.close();
    await d?.stop();
  });

  it("svc read > /dev/full: one line naming ENOSPC and a hint, exit 1", async () => {
    const uri = await d.newStream("full");
    expect(
      (await d.svc(["append", uri], { stdin: Array.from({ length: 1000 }, (_, i) => `line ${i}`).join("\n") + "\n" }))
        .code,
    ).toBe(0);
    const env = { ...process.env, HOME: tempHome(), ...d.env };
    const child = spawn("sh", ["-c", `exec node ${SVC_BIN} read ${uri} --from-beginning --count 1000 > /dev/full`], {
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    const code = await new Promise<number | null>((res) => child.on("exit", res));
    expect(code, stderr).toBe(1);
    expect(stderr).toMatch(/ENOSPC|no space/i);
    const lines = stderr.trim().split("\n");
    expect(lines.length, stderr).toBe(2);
    expect(lines[1], stderr).toMatch(/^hint: the disk stdout goes to is full/);
    expect(stderr).not.toMatch(/\n\s+at /);
  }, 60_000);

  // `--ack-timeout` is being added to svc append; until then `svc append` waits
  // for a black-holed ack forever (seen: still running after 20 s with --timeout 3s), and
  // this test is skipped with a note.
  const hasAckTimeout = execFileSync(process.execPath, [SVC_BIN, "append", "--help"], { encoding: "utf8" }).includes(
    "--ack-timeout",
  );
  if (!hasAckTimeout)
    process.stderr.write("[cli-faults] svc append has no --ack-timeout yet: the ack-timeout case is skipped\n");
  it.skipIf(!hasAckTimeout)(
    "an ack that never comes: svc append --ack-timeout gives up with exit 75, never hangs",
    async () => {
      const uri = await d.newStream("blackhole");
      const via = { ...d.env, SVC_ACCOUNT_ENDPOINT: proxy.url, SVC_BASIN_ENDPOINT: proxy.url };
      const child = spawn(process.execPath, [SVC_BIN, "append", uri, "--ack-timeout", "2s"], {
        env: { ...process.env, HOME: tempHome(), ...via },
        stdio: ["pipe", "ignore", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (c: Buffer) => {
        stderr += c.toString();
      });
      child.stdin.write("first\n");
      await new Promise((r) => setTimeout(r, 1000));
      proxy.blackHole();
      child.stdin.write("second\n");
      child.stdin.end();
      const t0 = Date.now();
      const code = await Promise.race([
        new Promise<number | null>((res) => child.on("exit", res)),
        new Promise<"hang">((res) => setTimeout(() => res("hang"), 20_000)),
      ]);
      proxy.heal();
      if (code === "hang") child.kill("SIGKILL");
      console.log(`ack timeout: exit ${code} after ${Date.now() - t0} ms; stderr: ${stderr.trim().split("\n").pop()}`);
      expect(code, stderr).toBe(75);
    },
    60_000,
  );
});
