import { MockAgent } from "undici";
import { describe, expect, it } from "vitest";
import { SvcClient, withInternals } from "../../../src/client/client.js";
import { basinRoute, isHostRouted, normalizeEndpoint } from "../../../src/client/endpoints.js";
import { HttpTransport } from "../../../src/transport/http.js";

function headerOf(h: unknown, name: string): string | undefined {
  if (Array.isArray(h)) {
    for (let i = 0; i < h.length; i += 2) if (String(h[i]).toLowerCase() === name) return String(h[i + 1]);
    return undefined;
  }
  const rec = h as Record<string, string>;
  const key = Object.keys(rec).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : rec[key];
}

function client(opts: { account?: string; basin?: string; retries?: number } = {}) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const transport = new HttpTransport({ dispatcher: agent, retries: opts.retries ?? 2, timeoutMs: 1000 });
  const c = new SvcClient(
    withInternals(
      {
        accountEndpoint: opts.account ?? "http://svc.test",
        basinEndpoint: opts.basin ?? opts.account ?? "http://svc.test",
        accessToken: "tok",
      },
      { transport },
    ),
  );
  return { agent, c };
}

describe("client > endpoints", () => {
  it("normalizes endpoints to end in /v1", () => {
    expect(normalizeEndpoint("http://127.0.0.1:4243", "x")).toBe("http://127.0.0.1:4243/v1");
    expect(normalizeEndpoint("https://a.example/v1/", "x")).toBe("https://a.example/v1");
    expect(() => normalizeEndpoint("ftp://x", "account endpoint")).toThrow(/scheme must be http or https/);
    expect(() => normalizeEndpoint("not a url", "account endpoint")).toThrow(/invalid account endpoint/);
  });

  it("routes by host only for a {basin}. host form different from the account endpoint", () => {
    expect(isHostRouted("https://{basin}.b.example/v1")).toBe(true);
    expect(isHostRouted("http://127.0.0.1:4243/v1")).toBe(false);
    expect(basinRoute("https://{basin}.b.example/v1", "https://a.example/v1", "my-basin-01")).toEqual({
      base: "https://my-basin-01.b.example/v1",
      headers: {},
    });
    expect(basinRoute("http://h/v1", "http://h/v1", "my-basin-01")).toEqual({
      base: "http://h/v1",
      headers: { "svc-basin": "my-basin-01" },
    });
    expect(basinRoute("http://other/v1", "http://h/v1", "my-basin-01").headers).toEqual({ "svc-basin": "my-basin-01" });
  });
});

describe("client > SvcClient", () => {
  it("sends svc-basin on basin-level requests with a shared endpoint, and percent-encodes stream names", async () => {
    const { agent, c } = client();
    let seen: unknown;
    agent
      .get("http://svc.test")
      .intercept({ path: "/v1/streams/a%2Fb%20c", method: "GET" })
      .reply((o) => {
        seen = o.headers;
        return { statusCode: 200, data: JSON.stringify({ storage_class: "express" }) };
      });
    expect(await c.basin("my-basin-01").streams.getConfig("a/b c")).toEqual({ storage_class: "express" });
    expect(headerOf(seen, "svc-basin")).toBe("my-basin-01");
    expect(headerOf(seen, "authorization")).toBe("Bearer tok");
  });

  it("uses the basin host and no svc-basin header with host routing", async () => {
    const { agent, c } = client({ account: "http://a.svc.test", basin: "http://{basin}.b.svc.test" });
    let seen: unknown;
    agent
      .get("http://my-basin-01.b.svc.test")
      .intercept({ path: "/v1/streams/s/records/tail", method: "GET" })
      .reply((o) => {
        seen = o.headers;
        return { statusCode: 200, data: JSON.stringify({ tail: { seq_num: 3, timestamp: 17 } }) };
      });
    expect(await c.basin("my-basin-01").stream("s").checkTail()).toEqual({ seqNum: 3, timestamp: 17 });
    expect(headerOf(seen, "svc-basin")).toBeUndefined();
  });

  it("reuses one svc-request-token across the retries of one create, and a fresh one per create", async () => {
    const { agent, c } = client({ retries: 2 });
    const tokens: (string | undefined)[] = [];
    const pool = agent.get("http://svc.test");
    const capture = (status: number) => (o: { headers?: unknown }) => {
      tokens.push(headerOf(o.headers, "svc-request-token"));
      return {
        statusCode: status,
        data: JSON.stringify(
          status === 201
            ? { name: "my-basin-01", state: "active", scope: null }
            : { code: "unavailable", message: "x" },
        ),
      };
    };
    pool.intercept({ path: "/v1/basins", method: "POST" }).reply(capture(503));
    pool.intercept({ path: "/v1/basins", method: "POST" }).reply(capture(201));
    pool.intercept({ path: "/v1/basins", method: "POST" }).reply(capture(201));
    const r = await c.basins.create("my-basin-01");
    expect(r).toMatchObject({ status: 201, info: { name: "my-basin-01", state: "active" } });
    await c.basins.create("my-basin-01");
    expect(tokens).toHaveLength(3);
    expect(tokens[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(tokens[1]).toBe(tokens[0]);
    expect(tokens[2]).not.toBe(tokens[0]);
  });

  it("sends a caller-chosen request token", async () => {
    const { agent, c } = client();
    let tok: string | undefined;
    agent
      .get("http://svc.test")
      .intercept({ path: "/v1/streams", method: "POST" })
      .reply((o) => {
        tok = headerOf(o.headers, "svc-request-token");
        return { statusCode: 201, data: JSON.stringify({ name: "s", created_at: "2026-01-01T00:00:00Z" }) };
      });
    await c.basin("my-basin-01").streams.create("s", { requestToken: "my-token" });
    expect(tok).toBe("my-token");
  });

  it("auto-paginates with start_after = the last name", async () => {
    const { agent, c } = client();
    const pool = agent.get("http://svc.test");
    pool
      .intercept({ path: "/v1/basins?prefix=p", method: "GET" })
      .reply(200, { basins: [{ name: "p-basin-1" }, { name: "p-basin-2" }], has_more: true });
    pool
      .intercept({ path: "/v1/basins?prefix=p&start_after=p-basin-2", method: "GET" })
      .reply(200, { basins: [{ name: "p-basin-3" }], has_more: false });
    const names: string[] = [];
    for await (const b of c.basins.listAll({ prefix: "p" })) names.push(b.name);
    expect(names).toEqual(["p-basin-1", "p-basin-2", "p-basin-3"]);
  });

  it("stops paginating at max items", async () => {
    const { agent, c } = client();
    agent
      .get("http://svc.test")
      .intercept({ path: "/v1/basins?limit=2", method: "GET" })
      .reply(200, { basins: [{ name: "basin-001" }, { name: "basin-002" }], has_more: true });
    const names: string[] = [];
    for await (const b of c.basins.listAll({ max: 2 })) names.push(b.name);
    expect(names).toEqual(["basin-001", "basin-002"]);
  });

  it("validates names locally before any request", async () => {
    const { c } = client();
    await expect(c.basins.getConfig("Bad")).rejects.toMatchObject({ code: "usage" });
    expect(() => c.basin("x")).toThrow(/8 to 48/);
    await expect(c.basin("my-basin-01").streams.delete("..")).rejects.toMatchObject({ code: "usage" });
  });

  it("rejects unsafe integers in responses instead of rounding", async () => {
    const { agent, c } = client();
    agent
      .get("http://svc.test")
      .intercept({ path: "/v1/streams/s/records/tail", method: "GET" })
      .reply(200, '{"tail":{"seq_num":18446744073709551615,"timestamp":0}}');
    await expect(c.basin("my-basin-01").stream("s").checkTail()).rejects.toMatchObject({ code: "protocol" });
  });

  it("round-trips a unary append and read through base64 JSON", async () => {
    const { agent, c } = client();
    const pool = agent.get("http://svc.test");
    let body: unknown;
    let format: string | undefined;
    pool.intercept({ path: "/v1/streams/s/records", method: "POST" }).reply((o) => {
      body = JSON.parse(String(o.body));
      format = headerOf(o.headers, "svc-format");
      const pos = { seq_num: 0, timestamp: 5 };
      return {
        statusCode: 200,
        data: JSON.stringify({ start: pos, end: { seq_num: 1, timestamp: 5 }, tail: { seq_num: 1, timestamp: 5 } }),
      };
    });
    pool
      .intercept({ path: "/v1/streams/s/records?seq_num=0&count=1", method: "GET" })
      .reply(200, { records: [{ seq_num: 0, timestamp: 5, body: "/wA=" }] });
    const s = c.basin("my-basin-01").stream("s");
    const ack = await s.append({ records: [{ headers: [], body: new Uint8Array([0xff, 0]) }] });
    expect(ack.end.seqNum).toBe(1);
    expect(format).toBe("base64");
    expect(body).toEqual({ records: [{ body: "/wA=" }] });
    const batch = await s.readBatch({ seqNum: 0 }, { count: 1 });
    expect([...batch.records[0]!.body]).toEqual([0xff, 0]);
  });
});
