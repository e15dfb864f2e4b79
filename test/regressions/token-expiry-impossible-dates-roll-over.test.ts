/**
 * Found by a bad-input probe: `POST /v1/access-tokens` checked `expires_at` only loosely and
 * let Date.parse read it, which rolls impossible dates over: `2027-02-30T00:00:00Z` was
 * accepted (201) and stored as 2027-03-02, `T24:00:00Z` became the next day, and
 * `.9999Z` was cut to `.999Z`. Now each field is checked: those are 422 invalid, and digits
 * past the millisecond must be zeros.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lite, liteClient, startLite } from "../helpers/lite.js";

let lite: Lite;
let n = 0;

beforeAll(async () => {
  lite = await startLite({ inMemory: true });
});

afterAll(async () => {
  await lite?.stop();
});

const issue = (expires_at: string) =>
  liteClient(lite).call("POST", "/v1/access-tokens", { json: { id: `t${n++}`, expires_at, scope: { ops: ["read"] } } });
const listed = async (id: string) =>
  (await liteClient(lite).call("GET", "/v1/access-tokens", { query: { prefix: id } })).json().access_tokens[0]
    ?.expires_at;

describe("access-token expires_at", () => {
  it.each([
    "2027-02-30T00:00:00Z",
    "2027-02-29T00:00:00Z",
    "2027-13-01T00:00:00Z",
    "2027-00-10T00:00:00Z",
    "2027-04-31T00:00:00Z",
    "2027-01-01T24:00:00Z",
    "2027-01-01T23:60:00Z",
    "2027-01-01T23:59:60Z",
    "2027-01-01T00:00:00+24:00",
    "2027-01-01T00:00:00.9999Z",
  ])("%s is refused (422) and no token is made", async (v) => {
    const before = n;
    const r = await issue(v);
    expect([r.status, r.json().code]).toEqual([422, "invalid"]);
    expect(await listed(`t${before}`)).toBeUndefined();
  });

  it.each([
    ["2028-02-29T00:00:00Z", "2028-02-29T00:00:00.000Z"],
    ["2027-12-31T23:59:59.5Z", "2027-12-31T23:59:59.500Z"],
    ["2027-06-01T12:00:00.123000000Z", "2027-06-01T12:00:00.123Z"],
    ["2027-06-01t02:30:00+02:30", "2027-06-01T00:00:00.000Z"],
    ["2027-06-01 00:00:00-01:00", "2027-06-01T01:00:00.000Z"],
  ])("%s is kept as %s", async (v, stored) => {
    const id = `t${n}`;
    expect((await issue(v)).status).toBe(201);
    expect(await listed(id)).toBe(stored);
  });
});
