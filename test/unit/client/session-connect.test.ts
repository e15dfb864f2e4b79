/**
 * A session connection that does not come up (src/transport/session.ts): the client counts a
 * connection as up once its server's SETTINGS came, so what happens before them must end the
 * open at once, with what went wrong, and never wait out the timeout for nothing:
 * - a server (a proxy with nothing behind it) that accepts and closes at once: `connect_failed`
 *   at once, not 30 s later as "no response";
 * - a server that accepts and says nothing: `client_timeout`, "no response", at the timeout.
 */
import net from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import type { SvcError } from "../../../src/errors.js";
import { SessionPool } from "../../../src/transport/session.js";

const servers: net.Server[] = [];
const sockets = new Set<net.Socket>();
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

async function server(onSocket: (s: net.Socket) => void): Promise<string> {
  const srv = net.createServer((s) => {
    sockets.add(s);
    s.on("error", () => undefined);
    onSocket(s);
  });
  servers.push(srv);
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(srv.address() as net.AddressInfo).port}`;
}

async function opened(origin: string, timeoutMs: number): Promise<{ error: SvcError; ms: number }> {
  const pool = new SessionPool();
  const started = Date.now();
  try {
    await pool.open({ url: `${origin}/v1/streams/s/records`, method: "GET", headers: {}, timeoutMs });
    throw new Error("the session opened");
  } catch (e) {
    return { error: e as SvcError, ms: Date.now() - started };
  } finally {
    pool.close();
  }
}

describe("a session connection that does not come up", () => {
  it("closed by the server before its SETTINGS: connect_failed at once", async () => {
    const origin = await server((s) => s.end());
    const { error, ms } = await opened(origin, 30_000);
    expect(error.code).toBe("connect_failed");
    expect(error.message).toContain("closed the connection before its SETTINGS");
    expect(ms).toBeLessThan(5_000);
  });

  it("silent after connecting: no response within the timeout", async () => {
    const origin = await server(() => undefined);
    const { error, ms } = await opened(origin, 500);
    expect(error.code).toBe("client_timeout");
    expect(error.message).toBe(`no response from ${origin} within 500 ms`);
    expect(ms).toBeGreaterThanOrEqual(450);
  });
});
