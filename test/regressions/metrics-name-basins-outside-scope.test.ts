/**
 * Found by a security review: `GET /v1/metrics?set=active-basins` named every active basin
 * on the server to any token with `account-metrics`, although the same token's basin
 * listing shows only the basins in its scope (§9.3: list operations return only items inside
 * the scope; the active-basins label is a listing of basins). A tenant token scoped to
 * `alpha-` learned `beta-...`. Now the label lists only basins the token's set covers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lite, liteClient, startLite } from "../helpers/lite.js";

let lite: Lite;
const tag = `${process.pid}`.slice(-5);
const alpha = `alpha-basin-${tag}`;
const beta = `beta-basin-${tag}`;

beforeAll(async () => {
  lite = await startLite();
  const root = liteClient(lite);
  for (const b of [alpha, beta]) {
    expect(
      (await root.call("POST", "/v1/basins", { json: { basin: b, config: { create_stream_on_append: true } } })).status,
    ).toBe(201);
    expect(
      (await root.call("POST", "/v1/streams/s/records", { basin: b, json: { records: [{ body: "x" }] } })).status,
    ).toBe(200);
  }
});

afterAll(async () => {
  await lite?.stop();
});

const activeBasins = async (token: string): Promise<string[]> => {
  const r = await liteClient({ url: lite.url, token }).call("GET", "/v1/metrics", {
    query: { set: "active-basins", start: Math.floor(Date.now() / 1000) - 3600, end: Math.floor(Date.now() / 1000) },
  });
  expect(r.status).toBe(200);
  return r.json().values[0].label.values;
};

describe("account metrics under a scoped token", () => {
  it("name only the active basins inside the token's basin set", async () => {
    expect(await activeBasins(lite.token)).toEqual([alpha, beta]); // root sees both
    const issued = await liteClient(lite).call("POST", "/v1/access-tokens", {
      json: { id: `tenant-a-${tag}`, scope: { basins: { prefix: "alpha-" }, op_groups: { account: { read: true } } } },
    });
    expect(issued.status).toBe(201);
    const tenant = issued.json().access_token as string;
    const listed = (await liteClient({ url: lite.url, token: tenant }).call("GET", "/v1/basins"))
      .json()
      .basins.map((b: { name: string }) => b.name);
    expect(listed).toEqual([alpha]);
    expect(await activeBasins(tenant)).toEqual([alpha]);

    const exact = await liteClient(lite).call("POST", "/v1/access-tokens", {
      json: { id: `tenant-b-${tag}`, scope: { basins: { exact: beta }, ops: ["account-metrics"] } },
    });
    expect(await activeBasins(exact.json().access_token)).toEqual([beta]);
  });
});
