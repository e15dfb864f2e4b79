/**
 * Access tokens expire by lite's clock, the one that stamps arrivals and judges ages
 * (openLite's `clock`, the store's now(): the database's on PostgreSQL), not by Date.now() apart
 * from it: a request after the expiry on that clock is refused with 401, an `expires_at` that
 * clock has passed is refused at issue (protocol.md §3.5, §9.5). Lite runs in this process on a
 * clock the test moves.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lite, liteClient, startLite } from "../helpers/lite.js";

let lite: Lite;
/** How far lite's clock is ahead of this machine's (ms). */
let ahead = 0;

beforeAll(async () => {
  lite = await startLite({ inProcess: true, clock: () => Date.now() + ahead });
});
afterAll(async () => {
  await lite?.stop();
});

const issue = (id: string, expiresAt: number) =>
  liteClient(lite).call("POST", "/v1/access-tokens", {
    json: { id, scope: { ops: ["list-basins"] }, expires_at: new Date(expiresAt).toISOString() },
  });

describe("an access token's expiry, on lite's clock", () => {
  it("is judged by that clock: the token works until the clock passes it, then gets 401", async () => {
    const made = await issue("hour", Date.now() + ahead + 3_600_000);
    expect(made.status, made.text()).toBe(201);
    const as = liteClient({ url: lite.url, token: made.json().access_token });
    expect((await as.call("GET", "/v1/basins")).status).toBe(200);
    ahead += 3_600_000;
    const after = await as.call("GET", "/v1/basins");
    expect([after.status, after.json().code]).toEqual([401, "authn"]);
    expect(after.json().message).toMatch(/"hour" expired at/);
  });

  it("is refused at issue when that clock has passed it, though this machine's has not", async () => {
    ahead += 600_000;
    const r = await issue("passed", Date.now() + 300_000);
    expect([r.status, r.json().code]).toEqual([422, "invalid"]);
    expect(r.json().message).toMatch(/must be in the future/);
  });
});
