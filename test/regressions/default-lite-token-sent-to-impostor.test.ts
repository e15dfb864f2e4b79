/**
 * Attack: with nothing configured, svc read the root token of lite's default data dir and sent
 * it to 127.0.0.1:4243 without knowing who listened there. Another local user who bound the
 * port while the user's lite was down captured the token (and, once lite was back, used it).
 *
 * Now that token goes only to a server that proves, on every new connection and before any
 * request carrying the token, that it knows it: svc sends a random nonce in
 * `svc-lite-challenge` (GET /ping), lite answers `svc-lite-proof` = HMAC-SHA256(token, nonce,
 * address, port). A server that cannot (an impostor, or one relaying the challenge to a lite
 * on another port) gets no token: the command fails with `unverified_server`, exit 3. This
 * holds for unary requests (node:http and undici) and for HTTP/2 sessions; the user's own lite
 * answers and everything works as before.
 */
import { spawn, spawnSync } from "node:child_process";
import { createServer, type Server } from "node:http";
import { createServer as createH2Server, type Http2Server } from "node:http2";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SvcClient, withInternals } from "../../src/client/client.js";
import { SvcError } from "../../src/errors.js";
import { SVC_BIN } from "../helpers/cli.js";
import { type Lite, startLite, uniqueBasin } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";

let lite: Lite;
const captured: string[] = [];
const servers: (Server | Http2Server)[] = [];

beforeAll(async () => {
  lite = await startLite();
}, 30_000);
afterAll(async () => {
  for (const s of servers) s.close();
  await lite?.stop();
});

/** An impostor on a free port that records every Authorization header; /ping answers `proof`. */
async function impostor(
  h2: boolean,
  proof: (challenge: string | undefined) => Promise<string | undefined>,
): Promise<string> {
  const handler = (
    req: { url?: string; headers: Record<string, string | string[] | undefined> },
    res: { writeHead(s: number, h: Record<string, string>): { end(b: string): void } },
  ): void => {
    const auth = req.headers.authorization;
    if (typeof auth === "string") captured.push(auth);
    const challenge = req.headers["svc-lite-challenge"];
    void proof(typeof challenge === "string" ? challenge : undefined).then((p) => {
      res
        .writeHead(200, { "content-type": "application/json", ...(p ? { "svc-lite-proof": p } : {}) })
        .end(req.url === "/ping" ? "OK" : '{"basins":[],"has_more":false}');
    });
  };
  const server = h2 ? createH2Server(handler as never) : createServer(handler as never);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function expectSvcError(e: unknown, code: string): void {
  expect(e).toBeInstanceOf(SvcError);
  expect((e as SvcError).code, (e as Error).message).toBe(code);
}

const forged = async (): Promise<string> => "0".repeat(64);
/** Asks the real lite for a proof of the impostor's challenge (a relay to a lite on another port). */
const relayed = async (challenge: string | undefined): Promise<string | undefined> => {
  if (challenge === undefined) return undefined;
  const r = await request(`${lite.url}/ping`, { headers: { "svc-lite-challenge": challenge } });
  await r.body.dump();
  return r.headers["svc-lite-proof"] as string | undefined;
};

function client(url: string, token: string, httpClient: "node" | "undici" = "node"): SvcClient {
  return new SvcClient(
    withInternals(
      { accountEndpoint: url, basinEndpoint: url, accessToken: token, retries: 0, timeoutMs: 5_000, httpClient },
      { liteProof: { tokenFile: "/home/u/.local/share/svc/lite/root-token" } },
    ),
  );
}

describe("the root token found in lite's default data dir", () => {
  it.each([
    ["node", forged],
    ["undici", forged],
    ["node", relayed],
    ["undici", relayed],
  ] as const)("is never sent to an impostor (unary over %s, proof %o)", async (httpClient, proof) => {
    captured.length = 0;
    const url = await impostor(false, proof);
    const c = client(url, lite.token, httpClient);
    const e = await c.basins.list().catch((err: unknown) => err);
    await c.close();
    expectSvcError(e, "unverified_server");
    expect((e as Error).message).toContain("could not prove that it is your svc lite");
    expect((e as Error).message).not.toContain(lite.token);
    expect(captured).toEqual([]);
  });

  it.each([
    ["forged", forged],
    ["relayed", relayed],
  ] as const)("is never sent to an impostor over an HTTP/2 session (%s proof)", async (_name, proof) => {
    captured.length = 0;
    const url = await impostor(true, proof);
    const c = client(url, lite.token);
    const s = c.basin("impostor-basin").stream("s");
    const e = await (async () => {
      for await (const _ of s.read({ seqNum: 0 }, { count: 1 })) break;
    })().catch((err: unknown) => err);
    await c.close();
    expectSvcError(e, "unverified_server");
    expect(captured).toEqual([]);
  });

  it.each(["node", "undici"] as const)(
    "still reaches the user's own lite (unary over %s, sessions, SSE)",
    async (httpClient) => {
      const c = client(lite.url, lite.token, httpClient);
      const basin = uniqueBasin("proof");
      await c.basins.create(basin, { config: { create_stream_on_append: true } });
      const s = c.basin(basin).stream("s");
      const session = await s.appender();
      await session.append({ records: [{ headers: [], body: Buffer.from("one") }] });
      await session.close();
      await s.append({ records: [{ headers: [], body: Buffer.from("two") }] });
      const bodies: string[] = [];
      for await (const ev of s.read({ seqNum: 0 }, { count: 2 }))
        if (ev.type === "batch") bodies.push(...ev.records.map((r) => Buffer.from(r.body).toString()));
      for await (const ev of s.read({ seqNum: 0 }, { count: 2 }, { transport: "sse" }))
        if (ev.type === "batch") bodies.push(...ev.records.map((r) => Buffer.from(r.body).toString()));
      await c.close();
      expect(bodies).toEqual(["one", "two", "one", "two"]);
    },
  );

  it("is refused by the user's lite when it is not that lite's token (a stale file)", async () => {
    const c = client(lite.url, "a-stale-token-from-an-older-lite");
    const e = await c.basins.list().catch((err: unknown) => err);
    await c.close();
    expectSvcError(e, "unverified_server");
  });
});

// The CLI itself, with nothing configured, on the real default address: in a private network
// namespace (its own loopback), so the fixed port 4243 is free and nobody else's.
const netns = spawnSync("unshare", ["-rn", "sh", "-c", "ip link set lo up"]).status === 0;

describe.skipIf(!netns)("svc with nothing configured, on 127.0.0.1:4243 of a private loopback", () => {
  it("sends the default token to its own lite, and never to an impostor that took the port (exit 3)", async () => {
    const home = scratchDir("svc-proof-home-");
    const script = `
      ip link set lo up
      node ${SVC_BIN} lite >/dev/null 2>"$HOME/lite.err" & LITE=$!
      for i in $(seq 1 100); do node ${SVC_BIN} basin list >/dev/null 2>&1 && break; sleep 0.1; done
      node ${SVC_BIN} basin create proof-basin-cli --create-stream-on-append; echo "create=$?"
      echo hello | node ${SVC_BIN} append svc://proof-basin-cli/s -q; echo "append=$?"
      node ${SVC_BIN} read svc://proof-basin-cli/s -s 0 -n 1 --transport session; echo "read=$?"
      kill $LITE; wait $LITE
      node -e 'require("http").createServer((q,s)=>{if(q.headers.authorization)console.log("CAPTURED "+q.headers.authorization);s.end("OK")}).listen(4243,"127.0.0.1")' & FAKE=$!
      sleep 0.5
      node ${SVC_BIN} basin list; echo "impostor-list=$?"
      echo x | node ${SVC_BIN} append svc://proof-basin-cli/s; echo "impostor-append=$?"
      kill $FAKE`;
    const r = await new Promise<{ out: string; err: string }>((resolve) => {
      const child = spawn("unshare", ["-rn", "sh", "-c", script], {
        env: {
          PATH: process.env.PATH ?? "",
          HOME: home,
          XDG_DATA_HOME: join(home, "data"),
          XDG_CONFIG_HOME: join(home, "config"),
          FORCE_COLOR: "0",
        },
      });
      let out = "";
      let err = "";
      child.stdout.on("data", (c: Buffer) => (out += c.toString()));
      child.stderr.on("data", (c: Buffer) => (err += c.toString()));
      child.on("close", () => resolve({ out, err }));
    });
    expect(r.out, r.err).toContain("create=0");
    expect(r.out).toContain("append=0");
    expect(r.out).toContain("hello\nread=0");
    expect(r.out).toContain("impostor-list=3");
    expect(r.out).toContain("impostor-append=3");
    expect(r.out).not.toContain("CAPTURED");
    expect(r.err).toContain("could not prove that it is your svc lite");
    expect(r.err).toContain("hint: if it is your own svc lite");
  }, 60_000);
});
