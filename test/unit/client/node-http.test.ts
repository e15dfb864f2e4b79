/** NodeHttpTransport against an in-process loopback server (port 0): statuses, retries, errors. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTransport } from "../../../src/transport/create.js";
import { NodeHttpTransport } from "../../../src/transport/node-http.js";

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
let server: Server;
let base: string;
const handlers: Handler[] = [];
const seen: { method: string; url: string; headers: IncomingMessage["headers"]; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const h = handlers.shift();
      if (h) h(req, body, res);
      else res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_q, _b, res) => {
    res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
  };

describe("transport > NodeHttpTransport (node:http)", () => {
  it("sends headers and bodies, returns 2xx bodies", async () => {
    const t = new NodeHttpTransport({ headers: () => ({ authorization: "Bearer t" }) });
    handlers.push(json(201, { ok: true }, { "svc-provision-result": "created" }));
    const res = await t.request({ method: "POST", url: `${base}/v1/basins`, body: '{"basin":"x"}', idempotent: true });
    await t.close();
    expect(res.status).toBe(201);
    expect(res.headers["svc-provision-result"]).toBe("created");
    expect(JSON.parse(Buffer.from(res.body).toString())).toEqual({ ok: true });
    const last = seen.at(-1)!;
    expect(last).toMatchObject({ method: "POST", url: "/v1/basins", body: '{"basin":"x"}' });
    expect(last.headers).toMatchObject({
      authorization: "Bearer t",
      "content-type": "application/json",
      "content-length": "13",
    });
  });

  it("retries an idempotent 503 and honours the budget", async () => {
    const t = new NodeHttpTransport({ retries: 1 });
    handlers.push(json(503, { code: "unavailable", message: "busy" }), json(200, { n: 1 }));
    expect((await t.request({ method: "GET", url: `${base}/a`, idempotent: true })).status).toBe(200);
    handlers.push(
      json(503, { code: "unavailable", message: "busy" }),
      json(503, { code: "unavailable", message: "busy" }),
    );
    await expect(t.request({ method: "GET", url: `${base}/a`, idempotent: true })).rejects.toMatchObject({
      code: "unavailable",
      status: 503,
    });
    await t.close();
  });

  it("does not re-send a non-idempotent request after a 503", async () => {
    const t = new NodeHttpTransport({ retries: 2 });
    const before = seen.length;
    handlers.push(json(503, { code: "unavailable", message: "busy" }));
    await expect(t.request({ method: "POST", url: `${base}/r`, body: "{}", idempotent: false })).rejects.toMatchObject({
      code: "unavailable",
    });
    expect(seen.length - before).toBe(1);
    await t.close();
  });

  it("maps 412 bodies and empty error bodies", async () => {
    const t = new NodeHttpTransport({ retries: 0 });
    handlers.push(json(412, { fencing_token_mismatch: "w2" }));
    await expect(t.request({ method: "POST", url: `${base}/x`, body: "{}", idempotent: false })).rejects.toMatchObject({
      code: "fencing_token_mismatch",
      expected: "w2",
    });
    handlers.push((_q, _b, res) => res.writeHead(404).end());
    await expect(t.request({ method: "GET", url: `${base}/x`, idempotent: true })).rejects.toMatchObject({
      status: 404,
    });
    await t.close();
  });

  it("times out a silent server (timeout after connecting) and retries idempotent calls", async () => {
    const t = new NodeHttpTransport({ retries: 0, timeoutMs: 100 });
    handlers.push(() => {}); // never answers
    await expect(t.request({ method: "GET", url: `${base}/slow`, idempotent: true })).rejects.toMatchObject({
      code: "client_timeout",
    });
    await t.close();
  });

  it("a refused connection is connect_failed (nothing sent)", async () => {
    const lines: string[] = [];
    const t = new NodeHttpTransport({ retries: 1, log: (l) => lines.push(l) });
    await expect(
      t.request({ method: "POST", url: "http://127.0.0.1:1/v1/x", body: "{}", idempotent: false }),
    ).rejects.toMatchObject({ code: "connect_failed" });
    expect(lines.filter((l) => l.includes("→ connect_failed"))).toHaveLength(2);
    await t.close();
  });

  it("createTransport picks node:http by default and undici on request", async () => {
    const a = await createTransport({});
    const b = await createTransport({ client: "undici" });
    expect(a.constructor.name).toBe("NodeHttpTransport");
    expect(b.constructor.name).toBe("HttpTransport");
    handlers.push(json(200, { via: "undici" }));
    expect((await b.request({ method: "GET", url: `${base}/u`, idempotent: true })).status).toBe(200);
    await a.close();
    await b.close();
  });
});
