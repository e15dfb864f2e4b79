/**
 * Found by a security review: a unary read waiting at the tail (`wait=N`, up to 60 s) kept
 * its token's permission for the whole wait. After the token was revoked, or after it
 * expired, the pending request still answered 200 with a record appended later, although
 * every new request with that token already got 401 (§9.5: revocation is immediate; an
 * expired token is rejected). Sessions and SSE re-checked their token; the long-poll did not.
 * Now it re-checks while it waits and before it answers: 401 within about a second.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lite, liteClient, startLite } from "../helpers/lite.js";

let lite: Lite;
const basin = `long-poll-${process.pid}`;

beforeAll(async () => {
  lite = await startLite();
  const root = liteClient(lite);
  expect((await root.call("POST", "/v1/basins", { json: { basin } })).status).toBe(201);
  expect((await root.call("POST", "/v1/streams", { basin, json: { stream: "s" } })).status).toBe(201);
  expect(
    (await root.call("POST", "/v1/streams/s/records", { basin, json: { records: [{ body: "before" }] } })).status,
  ).toBe(200);
});

afterAll(async () => {
  await lite?.stop();
});

async function issue(id: string, expiresAt?: string): Promise<string> {
  const r = await liteClient(lite).call("POST", "/v1/access-tokens", {
    json: {
      id,
      ...(expiresAt ? { expires_at: expiresAt } : {}),
      scope: { basins: { exact: basin }, streams: { exact: "s" }, op_groups: { stream: { read: true } } },
    },
  });
  expect(r.status).toBe(201);
  return r.json().access_token;
}

const tailNow = async (): Promise<number> =>
  (await liteClient(lite).call("GET", "/v1/streams/s/records/tail", { basin })).json().tail.seq_num;

/** A unary read at the current tail, waiting up to 30 s; resolves with its status, body and when. */
async function longPoll(token: string): Promise<{ status: number; body: string; at: number }> {
  const r = await liteClient({ url: lite.url, token }).call("GET", "/v1/streams/s/records", {
    basin,
    query: { seq_num: await tailNow(), wait: 30 },
  });
  return { status: r.status, body: r.text(), at: performance.now() };
}

const append = (body: string) =>
  liteClient(lite).call("POST", "/v1/streams/s/records", { basin, json: { records: [{ body }] } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a unary read waiting at the tail", () => {
  it("answers 401 within about a second of its token's revocation", async () => {
    const token = await issue(`poller-${process.pid}`);
    const pending = longPoll(token);
    await sleep(300); // parked at the tail
    const revokedAt = performance.now();
    expect((await liteClient(lite).call("DELETE", `/v1/access-tokens/poller-${process.pid}`)).status).toBe(204);
    const answer = await pending;
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body).code).toBe("authn");
    expect(answer.at - revokedAt).toBeLessThan(3_000);
  });

  it("does not serve a record appended after its token was revoked", async () => {
    const token = await issue(`poller2-${process.pid}`);
    const pending = longPoll(token);
    await sleep(300);
    expect((await liteClient(lite).call("DELETE", `/v1/access-tokens/poller2-${process.pid}`)).status).toBe(204);
    expect((await append("written after revocation")).status).toBe(200); // wakes the waiting read at once
    const answer = await pending;
    expect(answer.status).toBe(401);
    expect(answer.body).not.toContain("after revocation");
  });

  it("answers 401 once its token expires, and a record that came in between is not served", async () => {
    const token = await issue(`expiring-${process.pid}`, new Date(Date.now() + 2_000).toISOString());
    const pending = longPoll(token);
    await sleep(2_300); // expired now, still waiting
    const appended = await append("written after expiry"); // wakes the waiting read at once
    expect(appended.status).toBe(200);
    const answer = await pending;
    expect(answer.status).toBe(401);
    expect(answer.body).not.toContain("after expiry");
    expect(JSON.parse(answer.body).code).toBe("authn");
  });

  it("still serves a record appended while its token is valid", async () => {
    const pending = longPoll(await issue(`valid-${process.pid}`));
    await sleep(300);
    expect((await append("while valid")).status).toBe(200);
    const answer = await pending;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).records.map((r: { body: string }) => r.body)).toEqual(["while valid"]);
  });
});
