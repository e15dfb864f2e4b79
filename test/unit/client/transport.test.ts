import { MockAgent } from "undici";
import { afterEach, describe, expect, it, vi } from "vitest";
import { clientError, errorFromResponse, SvcError } from "../../../src/errors.js";
import { HttpTransport } from "../../../src/transport/http.js";
import { backoffDelay, shouldRetry } from "../../../src/transport/retry.js";

const ORIGIN = "http://svc.test";

function setup(retries = 2) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get(ORIGIN);
  const t = new HttpTransport({
    dispatcher: agent,
    retries,
    timeoutMs: 1000,
    headers: () => ({ authorization: "Bearer t" }),
  });
  return { agent, pool, t };
}

describe('transport > retry policy (docs/design/reliability.md, "Retry decisions")', () => {
  afterEach(() => vi.useRealTimers());

  it("backoff is min(100·2^n, 1000) + jitter in [0, base)", () => {
    for (let n = 0; n < 8; n++) {
      const base = Math.min(100 * 2 ** n, 1000);
      expect(backoffDelay(n, () => 0)).toBe(base);
      expect(backoffDelay(n, () => 0.999)).toBeLessThan(2 * base);
      for (let i = 0; i < 200; i++) {
        const d = backoffDelay(n);
        expect(d).toBeGreaterThanOrEqual(base);
        expect(d).toBeLessThan(2 * base);
      }
    }
  });

  it("a server's retry-after-ms is honoured when present, longer or shorter (protocol.md §11.2)", () => {
    expect(backoffDelay(0, () => 0, 5000)).toBe(5000);
    expect(backoffDelay(3, () => 0, 10)).toBe(10);
    expect(backoffDelay(3, () => 0, undefined)).toBe(800);
  });

  it("idempotent calls retry every retryable failure; others only side-effect-free ones", () => {
    const s503 = errorFromResponse(503, { code: "unavailable", message: "" });
    const s429 = errorFromResponse(429, { code: "rate_limited", message: "" });
    expect(shouldRetry(s503, true)).toBe(true);
    expect(shouldRetry(s503, false)).toBe(false);
    expect(shouldRetry(s429, false)).toBe(true);
    expect(shouldRetry(clientError("connect_failed", "x"), false)).toBe(true);
    expect(shouldRetry(clientError("client_timeout", "x"), false)).toBe(false);
    expect(shouldRetry(clientError("client_timeout", "x"), true)).toBe(true);
    expect(shouldRetry(errorFromResponse(404, { code: "basin_not_found", message: "" }), true)).toBe(false);
    expect(shouldRetry(errorFromResponse(409, { code: "transaction_conflict", message: "" }), true)).toBe(true);
    expect(shouldRetry(new Error("x"), true)).toBe(false);
  });
});

describe("transport > HttpTransport (undici)", () => {
  it("returns 2xx bodies and sends the base headers", async () => {
    const { pool, t } = setup();
    pool
      .intercept({ path: "/v1/basins", method: "GET", headers: { authorization: "Bearer t" } })
      .reply(200, { basins: [], has_more: false });
    const res = await t.request({ method: "GET", url: `${ORIGIN}/v1/basins`, idempotent: true });
    expect(res.status).toBe(200);
    expect(JSON.parse(Buffer.from(res.body).toString())).toEqual({ basins: [], has_more: false });
  });

  it("maps error bodies to SvcError and retries idempotent 503s", async () => {
    const { pool, t } = setup(2);
    pool.intercept({ path: "/v1/x", method: "GET" }).reply(503, { code: "unavailable", message: "busy" }).times(2);
    pool.intercept({ path: "/v1/x", method: "GET" }).reply(200, "{}");
    const res = await t.request({ method: "GET", url: `${ORIGIN}/v1/x`, idempotent: true });
    expect(res.status).toBe(200);
  });

  it("does not retry a non-idempotent request after a 503 (it may have taken effect)", async () => {
    const { pool, t } = setup(2);
    pool.intercept({ path: "/v1/x", method: "POST" }).reply(503, { code: "unavailable", message: "busy" });
    pool.intercept({ path: "/v1/x", method: "POST" }).reply(200, "{}");
    await expect(
      t.request({ method: "POST", url: `${ORIGIN}/v1/x`, body: "{}", idempotent: false }),
    ).rejects.toMatchObject({ code: "unavailable", status: 503 });
  });

  it("gives up after the retry budget with the last error", async () => {
    const { pool, t } = setup(1);
    pool
      .intercept({ path: "/v1/x", method: "GET" })
      .reply(429, { code: "rate_limited", message: "slow down" }, { headers: { "retry-after-ms": "1" } })
      .times(2);
    await expect(t.request({ method: "GET", url: `${ORIGIN}/v1/x`, idempotent: true })).rejects.toMatchObject({
      code: "rate_limited",
      retryAfterMs: 1,
    });
  });

  it("maps 412 and 416 bodies to their structured errors", async () => {
    const { pool, t } = setup(0);
    pool.intercept({ path: "/v1/a", method: "POST" }).reply(412, { seq_num_mismatch: 7 });
    pool.intercept({ path: "/v1/b", method: "GET" }).reply(416, { tail: { seq_num: 3, timestamp: 9 } });
    await expect(
      t.request({ method: "POST", url: `${ORIGIN}/v1/a`, body: "{}", idempotent: false }),
    ).rejects.toMatchObject({ code: "seq_num_mismatch", expected: 7 });
    await expect(t.request({ method: "GET", url: `${ORIGIN}/v1/b`, idempotent: true })).rejects.toMatchObject({
      code: "range_not_satisfiable",
      tail: { seqNum: 3, timestamp: 9 },
    });
  });

  it("handles empty and non-JSON error bodies by status", async () => {
    const { pool, t } = setup(0);
    pool.intercept({ path: "/v1/a", method: "GET" }).reply(404, "");
    pool.intercept({ path: "/v1/b", method: "GET" }).reply(500, "<html>oops</html>");
    await expect(t.request({ method: "GET", url: `${ORIGIN}/v1/a`, idempotent: true })).rejects.toMatchObject({
      status: 404,
      code: "http_404",
    });
    const e = await t.request({ method: "GET", url: `${ORIGIN}/v1/b`, idempotent: true }).catch((x) => x);
    expect(e).toBeInstanceOf(SvcError);
    expect(e.status).toBe(500);
  });

  it("maps connection failures to connect_failed and logs attempts", async () => {
    const lines: string[] = [];
    const t = new HttpTransport({ retries: 1, timeoutMs: 2000, log: (l) => lines.push(l) });
    const e = await t.request({ method: "GET", url: "http://127.0.0.1:1/v1/basins", idempotent: true }).catch((x) => x);
    await t.close();
    expect(e).toMatchObject({ code: "connect_failed", origin: "client" });
    expect(lines.some((l) => l.startsWith("GET http://127.0.0.1:1/v1/basins → connect_failed"))).toBe(true);
    expect(lines.some((l) => l.startsWith("retry 1/1"))).toBe(true);
  });

  it("times out a silent server as `client_timeout`", async () => {
    const { pool } = setup();
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent.get(ORIGIN).intercept({ path: "/v1/slow", method: "GET" }).reply(200, "{}").delay(500);
    const t = new HttpTransport({ dispatcher: agent, retries: 0, timeoutMs: 50 });
    await expect(t.request({ method: "GET", url: `${ORIGIN}/v1/slow`, idempotent: true })).rejects.toMatchObject({
      code: "client_timeout",
    });
    void pool;
  });
});
