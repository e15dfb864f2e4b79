/**
 * Found by a security review: `svc lite --no-auth` answered requests for any Host. Its CORS
 * guard refuses cross-origin requests, but a web page whose own name an attacker points at
 * 127.0.0.1 (DNS rebinding) makes same-origin requests: a GET carries no Origin header at all,
 * so the page could read every stream of a developer's open local server (and, with no Origin,
 * `DELETE /v1/basins/x` with a foreign Host was executed: 202). Now an open server answers only
 * a Host that is an IP address, `localhost` or `*.localhost`, or a name given with
 * `--allow-host` (and its subdomains); others get 403 and are not executed. With auth on,
 * every Host is answered as before (a page still needs a token).
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseLiteArgs } from "../../src/lite/options.js";
import { type Lite, startLite } from "../helpers/lite.js";

let open: Lite;
let authed: Lite;
const basin = `rebind-${process.pid}`;

beforeAll(async () => {
  open = await startLite({ args: ["--no-auth", "--allow-host", "Lite.Internal"] });
  authed = await startLite();
});

afterAll(async () => {
  await Promise.all([open?.stop(), authed?.stop()]);
});

/** One HTTP/1.1 request with exactly this Host header. */
function call(
  lite: Lite,
  method: string,
  path: string,
  host: string,
  body?: unknown,
): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = request(
      `${lite.url}${path}`,
      {
        method,
        headers: {
          host,
          authorization: `Bearer ${lite.token}`,
          ...(payload ? { "content-type": "application/json", "content-length": payload.length } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({ status: res.statusCode!, json: text.startsWith("{") ? JSON.parse(text) : text });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

describe("svc lite --no-auth", () => {
  it("refuses requests for a foreign host name, unexecuted", async () => {
    const port = open.port;
    expect((await call(open, "POST", "/v1/basins", `127.0.0.1:${port}`, { basin })).status).toBe(201);
    const read = await call(open, "GET", "/v1/basins", `attacker.example:${port}`);
    expect(read.status).toBe(403);
    expect(read.json.code).toBe("permission_denied");
    expect(read.json.message).toContain("--allow-host");
    expect((await call(open, "DELETE", `/v1/basins/${basin}`, `attacker.example:${port}`)).status).toBe(403);
    expect((await call(open, "GET", "/v1/basins", `127.0.0.1.attacker.example:${port}`)).status).toBe(403);
    const still = await call(open, "GET", `/v1/basins/${basin}`, `localhost:${port}`);
    expect([still.status, still.json.deleted_at ?? null]).toEqual([200, null]);
  });

  it("answers IP addresses, localhost names and --allow-host names with their subdomains", async () => {
    const port = open.port;
    for (const host of [
      `127.0.0.1:${port}`,
      `[::1]:${port}`,
      `localhost:${port}`,
      `LOCALHOST.:${port}`,
      `${basin}.localhost:${port}`,
      `192.168.1.20:${port}`,
      `lite.internal:${port}`,
      `${basin}.lite.internal`,
    ]) {
      expect([host, (await call(open, "GET", "/v1/basins", host)).status]).toEqual([host, 200]);
    }
    expect((await call(open, "GET", "/health", `attacker.example:${port}`)).status).toBe(200); // health stays open
  });

  it("takes a --host given as a name as an allowed host, not an address", () => {
    expect(parseLiteArgs(["--no-auth", "--host", "MyBox.lan", "--allow-host", "lite"]).allowHosts).toEqual([
      "lite",
      "mybox.lan",
    ]);
    expect(parseLiteArgs(["--no-auth", "--host", "0.0.0.0"]).allowHosts).toEqual([]);
  });

  it("refuses a malformed --allow-host at start", async () => {
    await expect(
      startLite({ args: ["--no-auth", "--allow-host", "http://lite.internal:80"], inMemory: true }),
    ).rejects.toThrow(/--allow-host takes a host name/);
  });
});

describe("svc lite with auth on", () => {
  it("answers any host name (a page still needs a token)", async () => {
    expect((await call(authed, "GET", "/v1/basins", `attacker.example:${authed.port}`)).status).toBe(200);
  });
});
