import { MockAgent } from "undici";
import { describe, expect, it } from "vitest";
import { SvcClient, withInternals } from "../../../src/client/client.js";
import { HttpTransport } from "../../../src/transport/http.js";

function client() {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const transport = new HttpTransport({ dispatcher: agent, retries: 0, timeoutMs: 1000 });
  return {
    agent,
    c: new SvcClient(
      withInternals(
        { accountEndpoint: "http://svc.test", basinEndpoint: "http://svc.test", accessToken: "tok" },
        { transport },
      ),
    ),
  };
}

describe("client > metrics", () => {
  it("asks the account endpoint for each level's set, start, end and interval", async () => {
    const { agent, c } = client();
    const pool = agent.get("http://svc.test");
    const doc = {
      values: [{ accumulation: { name: "append-ops", unit: "operations", interval: "minute", values: [[60, 2]] } }],
    };
    pool
      .intercept({ path: "/v1/metrics?set=active-basins&start=10&end=20", method: "GET" })
      .reply(200, { values: [{ label: { name: "active-basins", values: [] } }] });
    pool
      .intercept({ path: "/v1/metrics/my-basin-01?set=append-ops&start=0&end=120&interval=minute", method: "GET" })
      .reply(200, doc);
    pool.intercept({ path: "/v1/metrics/my-basin-01/a%2Fb?set=storage", method: "GET" }).reply(200, { values: [] });
    expect((await c.metrics.accountMetrics({ set: "active-basins", start: 10, end: 20 })).values).toHaveLength(1);
    expect(
      await c.metrics.basinMetrics("my-basin-01", { set: "append-ops", start: 0, end: 120, interval: "minute" }),
    ).toEqual(doc);
    expect(await c.metrics.streamMetrics("my-basin-01", "a/b", { set: "storage" })).toEqual({ values: [] });
  });

  it("checks names locally and the response's shape", async () => {
    const { agent, c } = client();
    await expect(c.metrics.basinMetrics("UPPER", { set: "storage" })).rejects.toMatchObject({ code: "usage" });
    agent
      .get("http://svc.test")
      .intercept({ path: "/v1/metrics?set=account-ops", method: "GET" })
      .reply(200, { nope: 1 });
    await expect(c.metrics.accountMetrics({ set: "account-ops" })).rejects.toMatchObject({ code: "protocol" });
  });
});

describe("client > locations", () => {
  it("lists, gets and sets the default with a JSON string body", async () => {
    const { agent, c } = client();
    const pool = agent.get("http://svc.test");
    let body: unknown;
    pool.intercept({ path: "/v1/locations", method: "GET" }).reply(200, [
      { name: "local", is_private: false },
      { name: "p:1", is_private: true },
    ]);
    pool.intercept({ path: "/v1/locations/default", method: "GET" }).reply(200, { name: "local", is_private: false });
    pool.intercept({ path: "/v1/locations/default", method: "PUT" }).reply((o) => {
      body = o.body;
      return { statusCode: 200, data: JSON.stringify({ name: "p:1", is_private: true }) };
    });
    expect(await c.locations.list()).toEqual([
      { name: "local", is_private: false },
      { name: "p:1", is_private: true },
    ]);
    expect(await c.locations.getDefault()).toEqual({ name: "local", is_private: false });
    expect(await c.locations.setDefault("p:1")).toEqual({ name: "p:1", is_private: true });
    expect(String(body)).toBe('"p:1"');
  });
});
