/**
 * lite's answers in S2's dialect against S2's published OpenAPI description
 * (test/fixtures/s2/openapi.json): each operation below is sent as S2's clients send it (S2's
 * header names, S2's basin scope), and its answer must have a status the description lists and
 * a body that fits its schema. Basins: S2's scopes (`aws:us-east-1`, …) are accepted and
 * answered to S2's requests; svc's `cloud:us-east-1` is answered to svc's and to a request that
 * names neither dialect (a list of basins), as before.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lite, startLite } from "../helpers/lite.js";
import { schemaErrors } from "../helpers/openapi.js";

const DOC = JSON.parse(readFileSync(resolve(import.meta.dirname, "../fixtures/s2/openapi.json"), "utf8")) as Record<
  string,
  never
>;
let lite: Lite;
const BASIN = `openapi-${process.pid}`;

beforeAll(async () => {
  lite = await startLite();
}, 60_000);
afterAll(async () => {
  await lite?.stop();
});

/** The response schema and the 2xx statuses the description lists for `method path`. */
function spec(method: string, path: string): { statuses: string[]; schema?: Record<string, unknown> } {
  const op = (DOC as Record<string, Record<string, Record<string, Record<string, unknown>>>>).paths![path]![
    method.toLowerCase()
  ] as { responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }> };
  const statuses = Object.keys(op.responses).filter((c) => c.startsWith("2"));
  const content = op.responses[statuses[0]!]?.content;
  return { statuses, schema: content ? Object.values(content)[0]!.schema : undefined };
}

async function call(
  method: string,
  url: string,
  specPath: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<unknown> {
  const res = await fetch(`${lite.url}/v1${url}`, {
    method,
    headers: {
      authorization: `Bearer ${lite.token}`,
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  const { statuses, schema } = spec(method, specPath);
  expect(statuses, `${method} ${url}: ${res.status} ${text}`).toContain(String(res.status));
  if (!schema) return undefined;
  const value = JSON.parse(text) as unknown;
  expect(schemaErrors(value, schema, DOC), `${method} ${url}: ${text}`).toEqual([]);
  return value;
}

const s2 = { "s2-basin": BASIN };

describe("lite's answers in S2's dialect fit S2's OpenAPI description", () => {
  it("the check bites: svc's scope, a missing field, a wrong type do not fit", () => {
    const info = { $ref: "#/components/schemas/BasinInfo" };
    const ok = { name: "my-basin-01", created_at: "2026-01-01T00:00:00Z", scope: "aws:us-east-1" };
    expect(schemaErrors(ok, info, DOC)).toEqual([]);
    expect(schemaErrors({ ...ok, scope: "cloud:us-east-1" }, info, DOC)).not.toEqual([]);
    expect(schemaErrors({ name: "my-basin-01" }, info, DOC)).not.toEqual([]);
    expect(schemaErrors({ ...ok, created_at: 5 }, info, DOC)).not.toEqual([]);
  });

  it("basins, streams, records, tokens and metrics", async () => {
    const made = (await call(
      "POST",
      "/basins",
      "/basins",
      { basin: BASIN, scope: "aws:us-east-1" },
      {
        "s2-request-token": "t-1",
      },
    )) as { scope: string };
    expect(made.scope).toBe("aws:us-east-1");
    await call("PUT", `/basins/${BASIN}-2`, "/basins/{basin}", { scope: "aws:eu-north-1" });
    await call("GET", `/basins/${BASIN}`, "/basins/{basin}");
    await call("PATCH", `/basins/${BASIN}`, "/basins/{basin}", {});
    await call("POST", "/streams", "/streams", { stream: "events" }, s2);
    await call("PUT", "/streams/other", "/streams/{stream}", {}, s2);
    await call("GET", "/streams", "/streams", undefined, s2);
    await call("GET", "/streams/events", "/streams/{stream}", undefined, s2);
    await call("PATCH", "/streams/events", "/streams/{stream}", {}, s2);
    const raw = { ...s2, "s2-format": "raw" };
    await call("POST", "/streams/events/records", "/streams/{stream}/records", { records: [{ body: "hi" }] }, raw);
    await call("GET", "/streams/events/records?seq_num=0", "/streams/{stream}/records", undefined, raw);
    await call("GET", "/streams/events/records/tail", "/streams/{stream}/records/tail", undefined, s2);
    await call("POST", "/access-tokens", "/access-tokens", {
      id: "openapi-1",
      scope: { ops: ["list-basins"], basins: { prefix: "" } },
    });
    await call("GET", "/access-tokens", "/access-tokens");
    const now = Math.floor(Date.now() / 1000);
    await call("GET", `/metrics?set=active-basins&start=${now - 3600}&end=${now}`, "/metrics");
  });

  it("svc's scope to svc's requests and to those naming neither dialect, as before", async () => {
    const res = await fetch(`${lite.url}/v1/basins?prefix=${BASIN}`, {
      headers: { authorization: `Bearer ${lite.token}` },
    });
    const list = (await res.json()) as { basins: { scope: string }[] };
    expect(list.basins.map((b) => b.scope)).toEqual(["cloud:us-east-1", "cloud:us-east-1"]);
    const bad = await fetch(`${lite.url}/v1/basins`, {
      method: "POST",
      headers: { authorization: `Bearer ${lite.token}`, "content-type": "application/json" },
      body: JSON.stringify({ basin: `${BASIN}-3`, scope: "mars:north-1" }),
    });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("aws:us-east-1");
  });
});
