/**
 * Found by a security review: lite chose between `create-*` and `reconfigure-*` for a PUT
 * before reading its body. A token with ops `create-stream, get-stream-config` sent the head
 * and one byte of `PUT /v1/streams/audit-log` with `{"retention_policy":{"age":60}}`; the owner
 * then created `audit-log` with infinite retention; the body completed: 200,
 * `svc-provision-result: updated`, retention now 60 s. The same worked for `PUT /v1/basins/…`
 * with a create-basin-only token. Now the decision and the authorization are made with the
 * change, from the same read: 403, and the config stays as the owner made it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStreams, type Lite, liteClient, startLite } from "../helpers/lite.js";
import { slowRequest } from "../helpers/slow-request.js";

let lite: Lite;
const basin = `audit-${process.pid}`;

beforeAll(async () => {
  lite = await startLite();
  await createStreams(lite, basin);
});

afterAll(async () => {
  await lite?.stop();
});

async function issue(id: string, ops: string[]): Promise<string> {
  const r = await liteClient(lite).call("POST", "/v1/access-tokens", {
    json: { id, scope: { basins: { prefix: "" }, streams: { prefix: "" }, ops } },
  });
  expect(r.status).toBe(201);
  return r.json().access_token as string;
}

describe("PUT create-or-reconfigure with a create-only token", () => {
  it("cannot reconfigure a stream created while its body arrived", async () => {
    const secret = await issue("creator-s", ["create-stream", "get-stream-config"]);
    const req = await slowRequest(
      lite.url,
      "PUT",
      "/v1/streams/audit-log",
      { authorization: `Bearer ${secret}`, "content-type": "application/json", "svc-basin": basin },
      JSON.stringify({ retention_policy: { age: 60 } }),
    );
    await new Promise((r) => setTimeout(r, 100));
    const made = await liteClient(lite).call("POST", "/v1/streams", {
      basin,
      json: { stream: "audit-log", config: { retention_policy: { infinite: {} } } },
    });
    expect(made.status).toBe(201);
    const res = await req.finish();
    expect(res.status).toBe(403);
    const cfg = await liteClient(lite).call("GET", "/v1/streams/audit-log", { basin });
    expect(cfg.json().retention_policy).toEqual({ infinite: {} });
  });

  it("cannot reconfigure a basin created while its body arrived", async () => {
    const secret = await issue("creator-b", ["create-basin", "get-basin-config"]);
    const name = `race-basin-${process.pid}`;
    const req = await slowRequest(
      lite.url,
      "PUT",
      `/v1/basins/${name}`,
      { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      JSON.stringify({ config: { create_stream_on_append: true } }),
    );
    await new Promise((r) => setTimeout(r, 100));
    expect((await liteClient(lite).call("POST", "/v1/basins", { json: { basin: name } })).status).toBe(201);
    expect((await req.finish()).status).toBe(403);
    const cfg = await liteClient(lite).call("GET", `/v1/basins/${name}`);
    expect(cfg.json().create_stream_on_append).toBe(false);
  });

  it("still creates what does not exist, and a token with neither op is refused before its body", async () => {
    const secret = await issue("creator-ok", ["create-stream"]);
    const c = liteClient({ url: lite.url, token: secret });
    expect((await c.call("PUT", "/v1/streams/fresh", { basin, json: {} })).status).toBe(201);
    expect((await c.call("PUT", "/v1/streams/fresh", { basin, json: {} })).status).toBe(403);
    const reader = await issue("reader-only", ["read"]);
    const req = await slowRequest(
      lite.url,
      "PUT",
      "/v1/streams/other",
      { authorization: `Bearer ${reader}`, "content-type": "application/json", "svc-basin": basin },
      "{}",
    );
    const early = await req.answer;
    expect(early.status).toBe(403);
    req.socket.destroy();
  });
});
