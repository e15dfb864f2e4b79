/**
 * Bug: one error code, `timeout`, named two things: the client's own deadline (no response
 * in time after the request was sent) and a legacy server code for a 408 (protocol.md §11.3).
 * A server that answered `408 {"code":"timeout"}` was therefore classified as the client's
 * own timeout, and svc told the user "the server did not answer in time; raise --timeout",
 * though the server had answered. Reproduced with a server that answers every request so and
 * `svc basin list --retries 0`. Expected: the server's code is kept as it sent it, with its
 * 408, and no advice about --timeout; the client's own deadline has a code of its own,
 * `client_timeout`, and keeps its advice.
 */
import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";

let answers408: Server;
let silent: Server;
const held: Socket[] = [];

async function listen(s: Server): Promise<string> {
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(s.address() as { port: number }).port}`;
}

let url408: string;
let urlSilent: string;
beforeAll(async () => {
  answers408 = createServer((_req, res) => {
    res.writeHead(408, { "content-type": "application/json" });
    res.end(JSON.stringify({ code: "timeout", message: "the request took too long upstream" }));
  });
  url408 = await listen(answers408);
  silent = createServer(() => undefined); // reads the request, never answers
  silent.on("connection", (s) => held.push(s));
  urlSilent = await listen(silent);
});

afterAll(async () => {
  for (const s of held) s.destroy();
  await new Promise((r) => answers408?.close(r));
  await new Promise((r) => silent?.close(r));
});

const at = (url: string) => ({ SVC_ACCOUNT_ENDPOINT: url, SVC_BASIN_ENDPOINT: url, SVC_ACCESS_TOKEN: "t" });

/** The one-line JSON error `--json` ends stderr with. */
function jsonError(stderr: string): { status: number | null; code: string } {
  return JSON.parse(stderr.trim().split("\n").at(-1)!).error;
}

describe("a server's 408 `timeout` and the client's own deadline are told apart", () => {
  it("a server that answered 408 `timeout` is not told to have been silent", async () => {
    const r = await runSvc(["basin", "list", "--retries", "0", "--json"], { env: at(url408) });
    expect(r.code).toBe(6);
    expect(jsonError(r.stderr)).toMatchObject({ status: 408, code: "timeout" });
    expect(r.stderr).not.toMatch(/did not answer in time|raise --timeout/);
  });

  it("the client's own deadline is `client_timeout`, with its advice", async () => {
    const r = await runSvc(["basin", "list", "--retries", "0", "--timeout", "300ms", "--json"], {
      env: at(urlSilent),
    });
    expect(r.code).toBe(6);
    expect(jsonError(r.stderr)).toMatchObject({ status: null, code: "client_timeout" });
    expect(r.stderr).toContain("hint: the server did not answer in time; raise --timeout or check the server");
  });
});
