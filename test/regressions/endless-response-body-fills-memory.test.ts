/**
 * Attack: svc kept a whole response body in memory. A server answering `svc basin list` with a
 * 1.5 GB chunked body took svc to 1.6 GB of RSS (and an endless one to the end of memory).
 *
 * Now a non-streaming response may hold at most 64 MiB, on both unary transports (node:http,
 * the default, and undici) and for a session's error body: past that svc stops reading, drops
 * the connection and fails with `too_large` (exit 1), having read little more than the cap.
 */
import { createServer, type Server } from "node:http";
import { createServer as createH2Server, type Http2Server } from "node:http2";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";

const CAP = 64 * 1024 * 1024;
const CHUNK = Buffer.alloc(1024 * 1024, 0x5b); // "[[[[…": JSON that never ends
const servers: (Server | Http2Server)[] = [];
afterAll(() => {
  for (const s of servers) s.close();
});

/** A server that answers every request with a body that never ends; `sent()` counts what it wrote. */
async function endless(h2: boolean, status = 200): Promise<{ url: string; sent: () => number }> {
  let sent = 0;
  const handler = (
    _req: unknown,
    res: {
      writeHead(s: number, h: Record<string, string>): void;
      write(b: Buffer): boolean;
      once(e: string, f: () => void): void;
      destroyed: boolean;
      on(e: string, f: () => void): void;
    },
  ): void => {
    res.writeHead(status, { "content-type": "application/json" });
    let open = true;
    res.on("close", () => {
      open = false;
    });
    const pump = (): void => {
      while (open) {
        sent += CHUNK.length;
        if (!res.write(CHUNK)) return res.once("drain", pump);
      }
    };
    pump();
  };
  const server = h2 ? createH2Server(handler as never) : createServer(handler as never);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sent: () => sent };
}

const env = (url: string, extra: Record<string, string> = {}): Record<string, string> => ({
  SVC_ACCOUNT_ENDPOINT: url,
  SVC_BASIN_ENDPOINT: url,
  SVC_ACCESS_TOKEN: "t0k3n-for-tests",
  ...extra,
});

describe("a response body that never ends", () => {
  it.each([
    ["node:http", {}],
    ["undici", { SVC_HTTP_CLIENT: "undici" }],
  ] as const)(
    "is cut at 64 MiB over %s: too_large, exit 1",
    async (_name, extra) => {
      const s = await endless(false);
      const r = await runSvc(["basin", "list", "--timeout", "60s", "--retries", "0"], {
        env: env(s.url, extra),
        timeoutMs: 30_000,
      });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain("is larger than 64 MiB");
      expect(r.stderr).toContain("(too_large)");
      expect(s.sent()).toBeLessThan(CAP + 32 * 1024 * 1024); // stopped soon after the cap, not at the end of memory
    },
    40_000,
  );

  it("is cut at 64 MiB in a session's error body", async () => {
    const s = await endless(true, 500);
    const r = await runSvc(
      [
        "read",
        "svc://some-basin/s",
        "-s",
        "0",
        "-n",
        "5000",
        "--transport",
        "session",
        "--timeout",
        "60s",
        "--retries",
        "0",
      ],
      { env: env(s.url), timeoutMs: 30_000 },
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain("is larger than 64 MiB");
    expect(s.sent()).toBeLessThan(CAP + 32 * 1024 * 1024);
  }, 40_000);
});
