/**
 * Found by a security review: a unary read waiting at the tail (`wait=N`, up to 60 s) kept
 * its token's permission for the whole wait. After the token was revoked, or after it
 * expired, the pending request still answered 200 with a record appended later, although
 * every new request with that token already got 401 (§9.5: revocation is immediate; an
 * expired token is rejected). Sessions and SSE re-checked their token; the long-poll did not.
 * Now it re-checks while it waits and before it answers: 401 within about a second.
 *
 * lite runs in this process on a clock the test moves ahead (tokens expire by it), so a token
 * expires while its read waits without the test waiting for it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lite, liteClient, startLite } from "../helpers/lite.js";

let lite: Lite;
const basin = `long-poll-${process.pid}`;
/** How far lite's clock is ahead of this machine's (ms). */
let ahead = 0;

beforeAll(async () => {
  lite = await startLite({ inProcess: true, clock: () => Date.now() + ahead });
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

/**
 * A unary read at the current tail, waiting up to 30 s, on an h2 connection of its own;
 * `answer` resolves with its status, body and when. It returns once lite has authenticated the
 * read: a check-tail sent after it on the same connection was answered, and lite takes a
 * connection's requests in order and, on lmdb, authenticates each before anything it awaits.
 */
async function longPoll(token: string): Promise<{ answer: Promise<{ status: number; body: string; at: number }> }> {
  const c = liteClient({ url: lite.url, token }, "h2");
  const query = { seq_num: await tailNow(), wait: 30 };
  const answer = c.call("GET", "/v1/streams/s/records", { basin, query }).then((r) => {
    void c.close();
    return { status: r.status, body: r.text(), at: performance.now() };
  });
  const after = await c.call("GET", "/v1/streams/s/records/tail", { basin });
  expect(after.status).toBe(200);
  return { answer };
}

const append = (body: string) =>
  liteClient(lite).call("POST", "/v1/streams/s/records", { basin, json: { records: [{ body }] } });

describe("a unary read waiting at the tail", () => {
  it("answers 401 within about a second of its token's revocation", async () => {
    const token = await issue(`poller-${process.pid}`);
    const pending = (await longPoll(token)).answer;
    const revokedAt = performance.now();
    expect((await liteClient(lite).call("DELETE", `/v1/access-tokens/poller-${process.pid}`)).status).toBe(204);
    const answer = await pending;
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body).code).toBe("authn");
    expect(answer.at - revokedAt).toBeLessThan(3_000);
  });

  it("does not serve a record appended after its token was revoked", async () => {
    const token = await issue(`poller2-${process.pid}`);
    const pending = (await longPoll(token)).answer;
    expect((await liteClient(lite).call("DELETE", `/v1/access-tokens/poller2-${process.pid}`)).status).toBe(204);
    expect((await append("written after revocation")).status).toBe(200); // wakes the waiting read at once
    const answer = await pending;
    expect(answer.status).toBe(401);
    expect(answer.body).not.toContain("after revocation");
  });

  it("answers 401 once its token expires, and a record that came in between is not served", async () => {
    const token = await issue(`expiring-${process.pid}`, new Date(Date.now() + ahead + 2_000).toISOString());
    const pending = (await longPoll(token)).answer;
    ahead += 2_300; // expired now, still waiting
    const appended = await append("written after expiry"); // wakes the waiting read at once
    expect(appended.status).toBe(200);
    const answer = await pending;
    expect(answer.status).toBe(401);
    expect(answer.body).not.toContain("after expiry");
    expect(JSON.parse(answer.body).code).toBe("authn");
  });

  it("still serves a record appended while its token is valid", async () => {
    const pending = (await longPoll(await issue(`valid-${process.pid}`))).answer;
    expect((await append("while valid")).status).toBe(200);
    const answer = await pending;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).records.map((r: { body: string }) => r.body)).toEqual(["while valid"]);
  });
});
