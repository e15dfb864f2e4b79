/**
 * Found by a bad-input probe: a query value whose percent-escapes are not UTF-8
 * (`start_after=%ED%A0%80`, a lone surrogate) was silently read as U+FFFD, so lite answered
 * a different question than the one asked (200, an empty list), while the same bytes in the
 * path were refused. Now such a query is 400 bad_query.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lite, startLite } from "../helpers/lite.js";

let lite: Lite;

beforeAll(async () => {
  lite = await startLite({ inMemory: true });
});

afterAll(async () => {
  await lite?.stop();
});

const get = async (pathAndQuery: string) => {
  const r = await fetch(`${lite.url}${pathAndQuery}`, { headers: { authorization: `Bearer ${lite.token}` } });
  return { status: r.status, body: (await r.json()) as { code?: string; message?: string } };
};

describe("query strings", () => {
  it.each([
    "/v1/basins?start_after=%ED%A0%80",
    "/v1/basins?prefix=%FF",
    "/v1/basins?prefix=ab%C3",
    "/v1/access-tokens?prefix=%E2%82",
  ])("%s is 400 bad_query", async (q) => {
    const r = await get(q);
    expect([r.status, r.body.code]).toEqual([400, "bad_query"]);
  });

  it("valid escapes, '+' and plain values still work", async () => {
    expect((await get("/v1/access-tokens?prefix=%C3%A9t%C3%A9")).status).toBe(200);
    expect((await get("/v1/access-tokens?prefix=a+b&limit=5")).status).toBe(200);
    expect((await get("/v1/basins?limit=%35")).status).toBe(200);
  });
});
