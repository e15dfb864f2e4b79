/**
 * Access tokens end to end against a real svc lite child process (protocol.md §9, §3.5,
 * A7–A9): authentication failures, issue rules, no escalation, listings, revocation and
 * expiry on kept-alive connections and open sessions, auto_prefix_streams, durability across
 * kill -9, CORS, --root-token-file, and no secret ever in lite's logs.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeTerminal, encodeFrame, type Frame, FrameParser } from "../../src/wire/framing.js";
import { decodeAppendAck, encodeAppendInput } from "../../src/wire/proto.js";
import {
  eventually,
  type Lite,
  type LiteClient,
  liteClient,
  type Protocol,
  spawnLite,
  startLite,
  uniqueBasin,
} from "../helpers/lite.js";
import { rawExchange } from "../helpers/raw-session.js";

const enc = new TextEncoder();
let lite: Lite;
let root: LiteClient;
let basin: string;
const minted: string[] = [];

async function issue(
  body: Record<string, unknown>,
  by: LiteClient = root,
): Promise<{ status: number; token?: string; json: any }> {
  const r = await by.call("POST", "/v1/access-tokens", { json: body });
  const json = r.json();
  if (r.status === 201) minted.push(json.access_token);
  return { status: r.status, token: json.access_token, json };
}

const as = (token: string, protocol: Protocol = "h1"): LiteClient => liteClient({ url: lite.url, token }, protocol);
const frames = (bytes: Buffer): Frame[] => {
  const p = new FrameParser();
  p.push(bytes);
  const out: Frame[] = [];
  for (let f = p.next(); f; f = p.next()) out.push(f);
  return out;
};

beforeAll(async () => {
  lite = await startLite();
  root = liteClient(lite);
  basin = uniqueBasin("auth");
  expect(
    (await root.call("POST", "/v1/basins", { json: { basin, config: { create_stream_on_append: true } } })).status,
  ).toBe(201);
}, 30_000);

afterAll(async () => {
  await lite?.stop();
  // No secret ever appears in lite's logs (the root token and every token minted here).
  const logs = lite?.stderr() ?? "";
  for (const s of [lite?.token, ...minted]) if (s) expect(logs.includes(s), "a secret in lite's stderr").toBe(false);
});

describe("authentication (§9.1)", () => {
  it("401 authn for missing, malformed, unknown, and a token of the right shape but wrong secret; /health stays open", async () => {
    const { token } = await issue({ id: "shape", scope: { ops: ["list-basins"] } });
    const wrongSecret = `${token!.slice(0, token!.lastIndexOf(".") + 1)}${"A".repeat(43)}`;
    for (const headers of [
      { authorization: "" },
      { authorization: "Basic abc" },
      { authorization: "Bearer" },
      { authorization: "Bearer nope" },
      { authorization: `Bearer ${wrongSecret}` },
    ]) {
      const r = await root.call("GET", "/v1/basins", { headers });
      expect([r.status, r.json().code], JSON.stringify(headers)).toEqual([401, "authn"]);
    }
    const noHeader = await fetch(`${lite.url}/v1/basins`);
    expect([noHeader.status, (await noHeader.json()).code]).toEqual([401, "authn"]);
    expect((await fetch(`${lite.url}/health`)).status).toBe(200);
  });
});

describe("issuing, listing and revoking (A7–A9, §3.5)", () => {
  it("rejects what §3.5 rejects: empty scope, exact auto-prefix, past expiry, bad ids, unknown ops; 409 on a duplicate", async () => {
    const cases: [Record<string, unknown>, number][] = [
      [{ id: "e1", scope: {} }, 422],
      [{ id: "e2", scope: { streams: { exact: "s" }, ops: ["read"] }, auto_prefix_streams: true }, 422],
      [{ id: "e3", scope: { ops: ["read"] }, expires_at: "2001-01-01T00:00:00Z" }, 422],
      [{ id: "e4", scope: { ops: ["read"] }, expires_at: "tomorrow" }, 422],
      [{ id: ".", scope: { ops: ["read"] } }, 422],
      [{ id: "x".repeat(97), scope: { ops: ["read"] } }, 422],
      [{ id: "e5", scope: { ops: ["teleport"] } }, 422],
      [{ id: "e6", scope: { basins: { exact: "a", prefix: "b" }, ops: ["read"] } }, 422],
    ];
    for (const [body, status] of cases) expect((await issue(body)).status, JSON.stringify(body)).toBe(status);
    expect((await issue({ id: "dup", scope: { ops: ["read"] } })).status).toBe(201);
    const again = await issue({ id: "dup", scope: { ops: ["read"] } });
    expect([again.status, again.json.code]).toEqual([409, "resource_already_exists"]);
  });

  it("lists ids, scopes and expiry (never a secret), paginated, and only what the token may see", async () => {
    for (const id of ["list/a", "list/b", "list/c"])
      await issue({ id, scope: { ops: ["read"] }, expires_at: "2099-01-01T00:00:00Z" });
    const page = (await root.call("GET", "/v1/access-tokens", { query: { prefix: "list/", limit: 2 } })).json();
    expect(page.access_tokens.map((t: { id: string }) => t.id)).toEqual(["list/a", "list/b"]);
    expect(page.has_more).toBe(true);
    expect(page.access_tokens[0]).toEqual({
      id: "list/a",
      expires_at: "2099-01-01T00:00:00.000Z",
      auto_prefix_streams: false,
      scope: {
        basins: null,
        streams: null,
        access_tokens: null,
        ops: ["read"],
        op_groups: {
          account: { read: false, write: false },
          basin: { read: false, write: false },
          stream: { read: false, write: false },
        },
      },
    });
    const rest = (
      await root.call("GET", "/v1/access-tokens", { query: { prefix: "list/", start_after: "list/b" } })
    ).json();
    expect(rest.access_tokens.map((t: { id: string }) => t.id)).toEqual(["list/c"]);
    const text = JSON.stringify((await root.call("GET", "/v1/access-tokens")).json());
    for (const s of minted) expect(text.includes(s)).toBe(false);
    const { token } = await issue({
      id: "lister",
      scope: { access_tokens: { prefix: "list/" }, ops: ["list-access-tokens"] },
    });
    const seen = (await as(token!).call("GET", "/v1/access-tokens"))
      .json()
      .access_tokens.map((t: { id: string }) => t.id);
    expect(seen).toEqual(["list/a", "list/b", "list/c"]);
  });

  it("never issues a broader token than the requestor's (§9.3): ops, sets, expiry", async () => {
    const { token } = await issue({
      id: "issuer",
      expires_at: "2090-01-01T00:00:00Z",
      scope: {
        basins: { prefix: "team-" },
        streams: { prefix: "" },
        access_tokens: { prefix: "team/" },
        ops: ["issue-access-token", "read", "append"],
      },
    });
    const by = as(token!);
    const within = await issue(
      { id: "team/reader", scope: { basins: { exact: "team-x" }, streams: { prefix: "logs" }, ops: ["read"] } },
      by,
    );
    expect(within.status).toBe(201);
    // It inherits the issuer's expiry when none is given.
    const listed = (await root.call("GET", "/v1/access-tokens", { query: { prefix: "team/reader" } })).json()
      .access_tokens[0];
    expect(listed.expires_at).toBe("2090-01-01T00:00:00.000Z");
    const broader: Record<string, unknown>[] = [
      { id: "team/w", scope: { basins: { exact: "team-x" }, ops: ["trim"] } },
      { id: "team/w2", scope: { basins: { prefix: "" }, ops: ["read"] } },
      { id: "team/w3", scope: { basins: { prefix: "team-" }, op_groups: { stream: { read: true } }, ops: [] } },
      { id: "team/w4", scope: { ops: ["read"] }, expires_at: "2095-01-01T00:00:00Z" },
      { id: "other/w", scope: { ops: ["read"] } },
    ];
    for (const body of broader) {
      const r = await issue(body, by);
      expect([r.status, r.json.code], JSON.stringify(body)).toEqual([403, "permission_denied"]);
    }
    // A null expiry ("never") is broader than the issuer's.
    expect((await issue({ id: "team/never", scope: { ops: ["read"] }, expires_at: null }, by)).status).toBe(403);
  });

  it("revoke: 204, then the token is refused; unknown or already revoked ids are 404; a token may revoke itself", async () => {
    const { token } = await issue({
      id: "self",
      scope: { access_tokens: { exact: "self" }, ops: ["revoke-access-token", "list-basins"] },
    });
    const c = as(token!);
    expect((await c.call("GET", "/v1/basins")).status).toBe(200);
    expect((await c.call("DELETE", "/v1/access-tokens/self")).status).toBe(204);
    expect((await c.call("GET", "/v1/basins")).status).toBe(401);
    const again = await root.call("DELETE", "/v1/access-tokens/self");
    expect([again.status, again.json().code]).toEqual([404, "access_token_not_found"]);
    expect((await root.call("DELETE", "/v1/access-tokens/never-was")).status).toBe(404);
  });
});

describe("revocation and expiry take effect at once", () => {
  it.each(["h1", "h2"] as Protocol[])("on a kept-alive connection for unary calls (%s)", async (protocol) => {
    const id = `keepalive-${protocol}`;
    const { token } = await issue({
      id,
      scope: { basins: { exact: basin }, streams: { prefix: "" }, op_groups: { stream: { read: true, write: true } } },
    });
    const c = as(token!, protocol);
    const append = () => c.call("POST", "/v1/streams/ka/records", { basin, json: { records: [{ body: "x" }] } });
    expect((await append()).status).toBe(200);
    expect((await append()).status).toBe(200);
    expect((await root.call("DELETE", `/v1/access-tokens/${encodeURIComponent(id)}`)).status).toBe(204);
    const after = await append();
    expect([after.status, after.json().code]).toEqual([401, "authn"]);
    await c.close();
  });

  it.each(["h1", "h2"] as Protocol[])(
    "an open append session ends with a terminal 401 at its next input (%s)",
    async (protocol) => {
      const id = `append-session-${protocol}`;
      const { token } = await issue({
        id,
        scope: {
          basins: { exact: basin },
          streams: { prefix: "" },
          op_groups: { stream: { read: true, write: true } },
        },
      });
      const stream = `as-${protocol}`;
      const ex = await rawExchange(lite.url, protocol, {
        method: "POST",
        path: `/v1/streams/${stream}/records`,
        duplex: true,
        headers: { authorization: `Bearer ${token}`, "svc-basin": basin, "content-type": "svc/proto" },
      });
      expect(ex.status).toBe(200);
      ex.write(encodeFrame(encodeAppendInput({ records: [{ headers: [], body: enc.encode("before") }] })));
      await ex.waitFor(4, 10_000);
      expect((await root.call("DELETE", `/v1/access-tokens/${id}`)).status).toBe(204);
      ex.write(encodeFrame(encodeAppendInput({ records: [{ headers: [], body: enc.encode("after") }] })));
      ex.end();
      const got = frames(await ex.done);
      expect(got.length).toBe(2);
      expect(decodeAppendAck(got[0]!.payload).end.seqNum).toBe(1);
      expect(got[1]!.terminal).toBe(true);
      expect(decodeTerminal(got[1]!.payload)).toMatchObject({ status: 401, body: { code: "authn" } });
      const tail = (await root.call("GET", `/v1/streams/${stream}/records/tail`, { basin })).json().tail.seq_num;
      expect(tail, "nothing after the revocation was applied").toBe(1);
    },
  );

  it.each(["h1", "h2"] as Protocol[])(
    "an open read session ends with a terminal 401 soon after revocation (%s)",
    async (protocol) => {
      const id = `read-session-${protocol}`;
      const { token } = await issue({
        id,
        scope: { basins: { exact: basin }, streams: { prefix: "" }, op_groups: { stream: { read: true } } },
      });
      const stream = `rs-${protocol}`;
      expect(
        (await root.call("POST", `/v1/streams/${stream}/records`, { basin, json: { records: [{ body: "one" }] } }))
          .status,
      ).toBe(200);
      const ex = await rawExchange(lite.url, protocol, {
        method: "GET",
        path: `/v1/streams/${stream}/records?seq_num=0`,
        headers: { authorization: `Bearer ${token}`, "svc-basin": basin, "content-type": "svc/proto" },
      });
      expect(ex.status).toBe(200);
      await ex.waitFor(10, 10_000);
      const t0 = Date.now();
      expect((await root.call("DELETE", `/v1/access-tokens/${id}`)).status).toBe(204);
      const got = frames(await ex.done);
      expect(Date.now() - t0).toBeLessThan(5_000);
      const last = got[got.length - 1]!;
      expect(last.terminal).toBe(true);
      expect(decodeTerminal(last.payload)).toMatchObject({ status: 401, body: { code: "authn" } });
    },
  );

  it("an expiring token: refused after expiry, and an open SSE read gets an error event", async () => {
    const expires = new Date(Date.now() + 2_500).toISOString();
    expect(
      (await root.call("POST", "/v1/streams/sse-exp/records", { basin, json: { records: [{ body: "one" }] } })).status,
    ).toBe(200);
    const { token } = await issue({
      id: "short-lived",
      expires_at: expires,
      scope: { basins: { exact: basin }, streams: { prefix: "" }, op_groups: { stream: { read: true } } },
    });
    const res = await fetch(`${lite.url}/v1/streams/sse-exp/records?seq_num=0`, {
      headers: { authorization: `Bearer ${token}`, "svc-basin": basin, accept: "text/event-stream" },
    });
    expect(res.status).toBe(200);
    const text = await new Response(res.body).text();
    expect(text).toMatch(/event: error\ndata: .*authn/);
    const after = await as(token!).call("GET", "/v1/streams/sse-exp/records/tail", { basin });
    expect([after.status, after.json().code]).toEqual([401, "authn"]);
  });
});

describe("create-or-reconfigure (§9.2: A4 and B4)", () => {
  it("PUT needs create-* when it creates and reconfigure-* when the resource exists", async () => {
    const name = uniqueBasin("put");
    const { token: creator } = await issue({
      id: `put-create-${name}`,
      scope: { basins: { exact: name }, streams: { prefix: "" }, ops: ["create-basin", "create-stream"] },
    });
    const { token: reconfigurer } = await issue({
      id: `put-reconf-${name}`,
      scope: { basins: { exact: name }, streams: { prefix: "" }, ops: ["reconfigure-basin", "reconfigure-stream"] },
    });
    expect((await as(reconfigurer!).call("PUT", `/v1/basins/${name}`)).status).toBe(403);
    expect((await as(creator!).call("PUT", `/v1/basins/${name}`)).status).toBe(201);
    expect(
      (await as(creator!).call("PUT", `/v1/basins/${name}`, { json: { config: { create_stream_on_read: true } } }))
        .status,
    ).toBe(403);
    expect(
      (await as(reconfigurer!).call("PUT", `/v1/basins/${name}`, { json: { config: { create_stream_on_read: true } } }))
        .status,
    ).toBe(200);
    expect((await as(reconfigurer!).call("PUT", "/v1/streams/s", { basin: name })).status).toBe(403);
    expect((await as(creator!).call("PUT", "/v1/streams/s", { basin: name })).status).toBe(201);
    expect((await as(creator!).call("PUT", "/v1/streams/s", { basin: name, json: {} })).status).toBe(403);
    expect((await as(reconfigurer!).call("PUT", "/v1/streams/s", { basin: name, json: {} })).status).toBe(200);
  });
});

describe("auto_prefix_streams (§9.4)", () => {
  it("a tenant creates, lists, appends and reads in its namespace; root sees the prefixed names", async () => {
    const { token } = await issue({
      id: "tenant-7",
      auto_prefix_streams: true,
      scope: {
        basins: { exact: basin },
        streams: { prefix: "tenant-7/" },
        op_groups: { stream: { read: true, write: true } },
        ops: ["list-streams", "create-stream", "get-stream-config", "delete-stream"],
      },
    });
    const t = as(token!);
    const created = await t.call("POST", "/v1/streams", { basin, json: { stream: "orders" } });
    expect([created.status, created.json().name]).toEqual([201, "orders"]);
    expect(
      (await t.call("POST", "/v1/streams/orders/records", { basin, json: { records: [{ body: "o-1" }] } })).status,
    ).toBe(200);
    expect(
      (await t.call("POST", "/v1/streams/events/records", { basin, json: { records: [{ body: "e-1" }] } })).status,
    ).toBe(200);
    const read = (await t.call("GET", "/v1/streams/orders/records", { basin, query: { seq_num: 0 } })).json();
    expect(read.records.map((r: { body: string }) => r.body)).toEqual(["o-1"]);
    const mine = (await t.call("GET", "/v1/streams", { basin })).json().streams.map((s: { name: string }) => s.name);
    expect(mine).toEqual(["events", "orders"]);
    const paged = (await t.call("GET", "/v1/streams", { basin, query: { prefix: "o" } }))
      .json()
      .streams.map((s: { name: string }) => s.name);
    expect(paged).toEqual(["orders"]);
    const after = (await t.call("GET", "/v1/streams", { basin, query: { start_after: "events" } }))
      .json()
      .streams.map((s: { name: string }) => s.name);
    expect(after).toEqual(["orders"]);
    const all = (await root.call("GET", "/v1/streams", { basin, query: { prefix: "tenant-7/" } }))
      .json()
      .streams.map((s: { name: string }) => s.name);
    expect(all).toEqual(["tenant-7/events", "tenant-7/orders"]);
    expect(
      (await root.call("GET", "/v1/streams/tenant-7%2Forders/records", { basin, query: { seq_num: 0 } })).json()
        .records[0].body,
    ).toBe("o-1");
  });
});

describe("durability, CORS and the root token", () => {
  it("issued and revoked tokens survive kill -9", async () => {
    const { token: keep } = await issue({ id: "durable-keep", scope: { ops: ["list-basins"] } });
    const { token: gone } = await issue({ id: "durable-gone", scope: { ops: ["list-basins"] } });
    expect((await root.call("DELETE", "/v1/access-tokens/durable-gone")).status).toBe(204);
    await lite.kill9();
    await lite.restart();
    root = liteClient(lite);
    expect((await as(keep!).call("GET", "/v1/basins")).status).toBe(200);
    expect((await as(gone!).call("GET", "/v1/basins")).status).toBe(401);
  });

  it("with auth on a foreign page still needs a token; with --no-auth only --cors-origin origins are answered", async () => {
    const foreign = { origin: "http://evil.test" };
    const withAuth = await fetch(`${lite.url}/v1/basins`, {
      method: "POST",
      headers: { ...foreign, "content-type": "text/plain" },
      body: JSON.stringify({ basin: "evil-basin-1" }),
    });
    expect(withAuth.status).toBe(401);
    const open = await startLite({ inMemory: true, args: ["--no-auth", "--cors-origin", "http://app.test"] });
    try {
      const pre = await fetch(`${open.url}/v1/basins`, {
        method: "OPTIONS",
        headers: { ...foreign, "access-control-request-method": "POST" },
      });
      expect(pre.status).toBe(403);
      expect(pre.headers.get("access-control-allow-origin")).toBeNull();
      const post = await fetch(`${open.url}/v1/basins`, {
        method: "POST",
        headers: { ...foreign, "content-type": "text/plain" },
        body: JSON.stringify({ basin: "evil-basin-1" }),
      });
      expect(post.status).toBe(403);
      const ok = await fetch(`${open.url}/v1/basins`, { headers: { origin: "http://app.test" } });
      expect([ok.status, ok.headers.get("access-control-allow-origin")]).toEqual([200, "http://app.test"]);
      const list = await (await fetch(`${open.url}/v1/basins`)).json();
      expect(list.basins).toEqual([]);
      await eventually(async () => /auth is OFF/.test(open.stderr()));
    } finally {
      await open.stop();
    }
    const wide = await startLite({ inMemory: true, args: ["--no-auth", "--host", "0.0.0.0"] });
    try {
      await eventually(async () => /warning: --no-auth while listening on 0\.0\.0\.0/.test(wide.stderr()));
    } finally {
      await wide.stop();
    }
  });

  it("--root-token-file chooses the root token; a bad file is a clear error", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-roottoken-"));
    try {
      const file = join(dir, "token");
      writeFileSync(file, "ci-chosen-root-token-0123456789\n", { mode: 0o600 });
      const chosen = await startLite({ inMemory: true, args: ["--root-token-file", file] });
      try {
        expect(chosen.token).toBe("ci-chosen-root-token-0123456789");
        expect((await liteClient(chosen).call("GET", "/v1/basins")).status).toBe(200);
        expect(chosen.stderr().includes("ci-chosen-root-token-0123456789")).toBe(false);
      } finally {
        await chosen.stop();
      }
      writeFileSync(file, "short\n", { mode: 0o600 });
      const err = await spawnLite(["--in-memory", "--port", "0", "--root-token-file", file]).then(
        () => "started",
        (e: Error) => e.message,
      );
      expect(err).toMatch(/--root-token-file .* must hold one token of 16 to 512 printable ASCII characters/);
      expect(err.includes("short\n")).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
