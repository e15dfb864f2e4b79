/**
 * Bug (found by test/reliability/bad-input): a stream name or access-token id
 * holding a lone UTF-16 surrogate (JSON "a\udc80b") was accepted. UTF-8 cannot carry it, so
 * the store kept U+FFFD instead: "a\udc80b", "a\udc81b" and "a\ufffdb" were one stream (the
 * second and third creates answered 409 `resource_already_exists` for a name never created).
 * Such names are now refused (400 bad_json in a body, 400 bad_path in a path, 422 for token
 * ids, like every other token-id rule) and nothing is created.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lite, type LiteClient, liteClient, startLite, uniqueBasin } from "../helpers/lite.js";

let lite: Lite;
let c: LiteClient;
let basin: string;
beforeAll(async () => {
  lite = await startLite({ inMemory: true });
  c = liteClient(lite);
  basin = uniqueBasin("surrogate");
  expect((await c.call("POST", "/v1/basins", { json: { basin } })).status).toBe(201);
});
afterAll(async () => {
  await lite?.stop();
});

describe("names with a lone surrogate", () => {
  it("a stream name in a create body: 400 bad_json, nothing created, U+FFFD still free", async () => {
    for (const name of ["a\udc80b", "\ud800", "x\udbff"]) {
      const r = await c.call("POST", "/v1/streams", { basin, json: { stream: name } });
      expect([r.status, r.json().code]).toEqual([400, "bad_json"]);
    }
    expect((await c.call("GET", "/v1/streams", { basin })).json().streams).toEqual([]);
    expect((await c.call("POST", "/v1/streams", { basin, json: { stream: "a\ufffdb" } })).status).toBe(201);
  });

  it("a stream name in a path (percent-encoded CESU bytes are not UTF-8 either): 400", async () => {
    const r = await c.call("GET", "/v1/streams/a%ED%B2%80b/records/tail", { basin });
    expect(r.status).toBe(400);
    expect(["bad_path", "bad_json"]).toContain(r.json().code);
  });

  it("an access-token id: 422 invalid, not issued", async () => {
    const r = await c.call("POST", "/v1/access-tokens", {
      json: { id: "t\udc80", scope: { op_groups: { account: { read: true } } } },
    });
    expect(r.status).toBe(422);
    expect(r.json().code).toBe("invalid");
  });
});
