/**
 * svc lite's authorization against the model of protocol.md §9 (test/helpers/authz-model.ts,
 * written from the spec, not from the server): an explicit matrix of every operation × in
 * and out of scope × exact, prefix and empty sets, then 10,000 random (scope, request) pairs.
 * A request the model allows must not get 401/403; one it refuses must get 403
 * permission_denied. Tokens are issued by the root token and reused per scope.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ModelRequest, type ModelScope, type ModelSet, modelAllows } from "../helpers/authz-model.js";
import { type Lite, type LiteClient, liteClient, startLite } from "../helpers/lite.js";
import { suiteSeed, tierCount } from "../helpers/tier.js";

const BASINS = ["alpha-one", "alpha-two", "beta-one"];
const STREAMS = ["s-1", "s-2", "t-1"];
const TOKEN_IDS = ["tok-a", "tok-b"];

interface Template {
  op: string;
  extraOps?: string[];
  /** The request, given the resources it names. */
  call: (
    basin: string,
    stream: string,
    tokenId: string,
  ) => { method: string; path: string; basin?: string; json?: unknown; query?: Record<string, string> };
  names: ("basin" | "stream" | "tokenId")[];
}

const rec = (s: string) => `/v1/streams/${encodeURIComponent(s)}/records`;
const TEMPLATES: Template[] = [
  { op: "list-basins", names: [], call: () => ({ method: "GET", path: "/v1/basins" }) },
  { op: "create-basin", names: ["basin"], call: (b) => ({ method: "POST", path: "/v1/basins", json: { basin: b } }) },
  { op: "get-basin-config", names: ["basin"], call: (b) => ({ method: "GET", path: `/v1/basins/${b}` }) },
  { op: "reconfigure-basin", names: ["basin"], call: (b) => ({ method: "PATCH", path: `/v1/basins/${b}`, json: {} }) },
  { op: "delete-basin", names: ["basin"], call: (b) => ({ method: "DELETE", path: `/v1/basins/${b}-gone` }) },
  { op: "list-streams", names: ["basin"], call: (b) => ({ method: "GET", path: "/v1/streams", basin: b }) },
  {
    op: "create-stream",
    names: ["basin", "stream"],
    call: (b, s) => ({ method: "POST", path: "/v1/streams", basin: b, json: { stream: s } }),
  },
  {
    op: "get-stream-config",
    names: ["basin", "stream"],
    call: (b, s) => ({ method: "GET", path: `/v1/streams/${s}`, basin: b }),
  },
  {
    op: "reconfigure-stream",
    names: ["basin", "stream"],
    call: (b, s) => ({ method: "PATCH", path: `/v1/streams/${s}`, basin: b, json: {} }),
  },
  {
    op: "delete-stream",
    names: ["basin", "stream"],
    call: (b, s) => ({ method: "DELETE", path: `/v1/streams/${s}-gone`, basin: b }),
  },
  {
    op: "append",
    names: ["basin", "stream"],
    call: (b, s) => ({ method: "POST", path: rec(s), basin: b, json: { records: [{ body: "x" }] } }),
  },
  {
    op: "append",
    extraOps: ["fence"],
    names: ["basin", "stream"],
    call: (b, s) => ({
      method: "POST",
      path: rec(s),
      basin: b,
      json: { records: [{ headers: [["", "fence"]], body: "" }] },
    }),
  },
  {
    op: "append",
    extraOps: ["trim"],
    names: ["basin", "stream"],
    call: (b, s) => ({
      method: "POST",
      path: rec(s),
      basin: b,
      json: { records: [{ headers: [["", "dHJpbQ=="]], body: "AAAAAAAAAAA=" }] },
      query: { "svc-format": "base64" },
    }),
  },
  {
    op: "read",
    names: ["basin", "stream"],
    call: (b, s) => ({ method: "GET", path: rec(s), basin: b, query: { seq_num: "0", count: "1", wait: "0" } }),
  },
  {
    op: "check-tail",
    names: ["basin", "stream"],
    call: (b, s) => ({ method: "GET", path: `${rec(s)}/tail`, basin: b }),
  },
  { op: "list-access-tokens", names: [], call: () => ({ method: "GET", path: "/v1/access-tokens" }) },
  {
    op: "revoke-access-token",
    names: ["tokenId"],
    call: (_b, _s, t) => ({ method: "DELETE", path: `/v1/access-tokens/${t}-gone` }),
  },
];

let lite: Lite;
let root: LiteClient;
const tokens = new Map<string, LiteClient>();
let issued = 0;

async function clientFor(scope: ModelScope): Promise<LiteClient> {
  const key = JSON.stringify(scope);
  const hit = tokens.get(key);
  if (hit) return hit;
  const r = await root.call("POST", "/v1/access-tokens", { json: { id: `model-${issued++}`, scope } });
  expect(r.status, r.text()).toBe(201);
  const c = liteClient({ url: lite.url, token: r.json().access_token as string });
  tokens.set(key, c);
  return c;
}

/** Sends one templated request with the token of `scope`; compares with the model. */
async function check(scope: ModelScope, t: Template, basin: string, stream: string, tokenId: string): Promise<void> {
  const c = await clientFor(scope);
  const req = t.call(basin, stream, tokenId);
  const r = await c.call(req.method, req.path, {
    basin: req.basin,
    json: req.json,
    query: req.query,
    headers: req.query?.["svc-format"] ? { "svc-format": req.query["svc-format"] } : {},
  });
  const m: ModelRequest = { op: t.op };
  for (const n of t.names)
    m[n] =
      n === "basin"
        ? t.op === "delete-basin"
          ? `${basin}-gone`
          : basin
        : n === "stream"
          ? t.op === "delete-stream"
            ? `${stream}-gone`
            : stream
          : `${tokenId}-gone`;
  const allowed = modelAllows(scope, m, t.extraOps);
  const what = `${t.op}${t.extraOps ? `+${t.extraOps}` : ""} ${JSON.stringify(m)} with scope ${JSON.stringify(scope)} → ${r.status} ${r.text().slice(0, 200)}`;
  if (allowed) expect([401, 403].includes(r.status), `model allows, server refused: ${what}`).toBe(false);
  else expect([r.status, r.json().code], `model refuses, server did not: ${what}`).toEqual([403, "permission_denied"]);
}

beforeAll(async () => {
  lite = await startLite({ inMemory: true, inProcess: true });
  root = liteClient(lite);
  for (const b of BASINS) {
    expect(
      (await root.call("POST", "/v1/basins", { json: { basin: b, config: { create_stream_on_append: true } } })).status,
    ).toBe(201);
    for (const s of STREAMS)
      expect((await root.call("POST", "/v1/streams", { basin: b, json: { stream: s } })).status).toBe(201);
  }
}, 60_000);
afterAll(async () => {
  await lite?.stop();
});

describe("authorization matches the model of protocol.md §9", () => {
  it("explicit matrix: every operation × in/out of scope × exact, prefix and empty sets", async () => {
    const ALL: ModelSet = { prefix: "" };
    const variants = (names: string[], inName: string): ModelSet[] => [
      { exact: inName },
      { exact: names.find((n) => n !== inName)! },
      { prefix: inName.slice(0, 3) },
      { prefix: "zz" },
      { exact: "" },
      { prefix: "" },
      null,
      undefined,
    ];
    let cases = 0;
    for (const t of TEMPLATES) {
      const grants: ModelScope[] = [
        { ops: [t.op, ...(t.extraOps ?? [])] },
        {
          op_groups: {
            account: { read: true, write: true },
            basin: { read: true, write: true },
            stream: { read: true, write: true },
          },
        },
        { ops: ["list-basins"].filter((o) => o !== t.op).concat(t.op === "list-basins" ? ["read"] : []) },
        ...(t.extraOps ? [{ ops: [t.op] }] : []),
      ];
      for (const g of grants) {
        for (const kind of ["basins", "streams", "access_tokens"] as const) {
          const pool = kind === "basins" ? BASINS : kind === "streams" ? STREAMS : TOKEN_IDS;
          const inName = kind === "access_tokens" ? "tok-a-gone" : pool[0]!;
          for (const v of variants(pool, inName)) {
            const scope: ModelScope = { basins: ALL, streams: ALL, access_tokens: ALL, ...g, [kind]: v };
            await check(scope, t, BASINS[0]!, STREAMS[0]!, TOKEN_IDS[0]!);
            cases++;
          }
        }
      }
    }
    console.log(`authz matrix: ${cases} cases, 0 disagreements`);
  }, 120_000);

  it("random (scope, request) pairs agree with the model", async () => {
    const seed = suiteSeed("authz-model");
    const runs = tierCount(10_000, 50_000, "AUTHZ_RUNS");
    const set = (pool: string[], prefixes: string[]): fc.Arbitrary<ModelSet> =>
      fc.oneof(
        fc.constant(null),
        fc.constant(undefined),
        fc.constant({ exact: "" }),
        fc.constantFrom(...pool).map((exact) => ({ exact })),
        fc.constantFrom(...prefixes).map((prefix) => ({ prefix })),
      );
    const rw = fc.option(fc.record({ read: fc.boolean(), write: fc.boolean() }, { requiredKeys: [] }), {
      nil: undefined,
    });
    const scope: fc.Arbitrary<ModelScope> = fc
      .record(
        {
          basins: set(BASINS, ["", "alpha", "alpha-one", "beta", "q"]),
          streams: set(STREAMS, ["", "s", "s-1", "t", "q"]),
          access_tokens: set(
            TOKEN_IDS.map((t) => `${t}-gone`),
            ["", "tok", "tok-a", "x"],
          ),
          op_groups: fc.record({ account: rw, basin: rw, stream: rw }, { requiredKeys: [] }),
          ops: fc.subarray([...new Set(TEMPLATES.flatMap((t) => [t.op, ...(t.extraOps ?? [])]))], { maxLength: 4 }),
        },
        { requiredKeys: ["op_groups", "ops"] },
      )
      .filter((s) => (s.ops?.length ?? 0) > 0 || Object.values(s.op_groups ?? {}).some((g) => g?.read || g?.write));
    await fc.assert(
      fc.asyncProperty(
        scope,
        fc.constantFrom(...TEMPLATES),
        fc.constantFrom(...BASINS),
        fc.constantFrom(...STREAMS),
        fc.constantFrom(...TOKEN_IDS),
        async (s, t, b, st, tok) => {
          await check(s, t, b, st, tok);
        },
      ),
      { numRuns: runs, seed },
    );
    console.log(`authz model: ${runs} random pairs, ${tokens.size} distinct tokens, 0 disagreements (seed ${seed})`);
  }, 600_000);
});
