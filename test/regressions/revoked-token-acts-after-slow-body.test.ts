/**
 * Found by a security review: lite authenticated a request when its head arrived, then read
 * the body with no deadline and never checked again. A token revoked while its body was still
 * arriving still acted: `victim/dev` sent the head of `POST /v1/access-tokens` and one byte,
 * the root revoked `victim/dev` (204; the token then got 401), the rest of the body arrived:
 * 201, and the new `victim/persist` worked and never expired. An append sent the same way was
 * stored 35 s after revocation. Now the principal is checked again once the body has arrived,
 * before anything is executed: 401, nothing issued, nothing stored.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStreams, type Lite, liteClient, startLite } from "../helpers/lite.js";
import { slowRequest } from "../helpers/slow-request.js";

let lite: Lite;
const basin = `victim-basin-${process.pid}`;

beforeAll(async () => {
  lite = await startLite();
  await createStreams(lite, basin, ["log"]);
});

afterAll(async () => {
  await lite?.stop();
});

async function issue(id: string): Promise<string> {
  const r = await liteClient(lite).call("POST", "/v1/access-tokens", {
    json: {
      id,
      scope: {
        basins: { prefix: "" },
        streams: { prefix: "" },
        access_tokens: { prefix: "victim/" },
        ops: ["read", "append", "issue-access-token"],
      },
    },
  });
  expect(r.status).toBe(201);
  return r.json().access_token as string;
}

async function revoke(id: string): Promise<void> {
  const r = await liteClient(lite).call("DELETE", `/v1/access-tokens/${encodeURIComponent(id)}`);
  expect(r.status).toBe(204);
}

describe("a token revoked while its request body arrives", () => {
  it("cannot issue a token once the body completes", async () => {
    const secret = await issue("victim/dev");
    const body = JSON.stringify({ id: "victim/persist", scope: { basins: { prefix: "" }, ops: ["read"] } });
    const req = await slowRequest(
      lite.url,
      "POST",
      "/v1/access-tokens",
      { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body,
    );
    await new Promise((r) => setTimeout(r, 100));
    await revoke("victim/dev");
    const res = await req.finish();
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body).code).toBe("authn");
    const list = await liteClient(lite).call("GET", "/v1/access-tokens", { query: { prefix: "victim/" } });
    expect(list.json().access_tokens.map((t: { id: string }) => t.id)).toEqual([]);
  });

  it("cannot append once the body completes", async () => {
    const secret = await issue("victim/appender");
    const body = JSON.stringify({ records: [{ body: "after revocation" }] });
    const req = await slowRequest(
      lite.url,
      "POST",
      "/v1/streams/log/records",
      { authorization: `Bearer ${secret}`, "content-type": "application/json", "svc-basin": basin },
      body,
    );
    await new Promise((r) => setTimeout(r, 100));
    await revoke("victim/appender");
    const res = await req.finish();
    expect(res.status).toBe(401);
    const tail = await liteClient(lite).call("GET", "/v1/streams/log/records/tail", { basin });
    expect(tail.json().tail.seq_num).toBe(0);
  });

  it("still acts when not revoked (the slow body itself is fine)", async () => {
    const secret = await issue("victim/ok");
    const body = JSON.stringify({ records: [{ body: "kept" }] });
    const req = await slowRequest(
      lite.url,
      "POST",
      "/v1/streams/log/records",
      { authorization: `Bearer ${secret}`, "content-type": "application/json", "svc-basin": basin },
      body,
    );
    await new Promise((r) => setTimeout(r, 100));
    expect((await req.finish()).status).toBe(200);
    req.socket.destroy();
  });
});
