/**
 * Attack: `svc read --transport sse` against a server that sends a line with no newline spun
 * forever: the client's buffer had no bound and was searched again from its start on every
 * chunk (35 s of CPU in 40 s), and the heartbeat timeout never fired.
 *
 * Now a line (and an event's data) may hold at most 8 MiB, each chunk is scanned once, and the
 * silence deadline is checked at every chunk too: a line that never ends fails the read at
 * once (`protocol`, exit 1), and bytes that make no event (a flood of comments) end it after
 * the heartbeat timeout. Lines split anywhere (CR, LF, CRLF across chunks) still parse.
 */
import { createServer, type Http2Server, type ServerHttp2Stream } from "node:http2";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { SvcClient } from "../../src/client/client.js";
import { LineSplitter, sseEvents } from "../../src/client/sse-read.js";
import { runSvc } from "../helpers/cli.js";

const servers: Http2Server[] = [];
afterAll(() => {
  for (const s of servers) s.close();
});

/** An h2c server answering every request with an event stream that repeats `chunk` until the client goes. */
async function flood(chunk: string, prefix = ""): Promise<string> {
  const server = createServer();
  server.on("stream", (stream: ServerHttp2Stream) => {
    stream.respond({ ":status": 200, "content-type": "text/event-stream" });
    const buf = Buffer.from(chunk.repeat(Math.ceil(65_536 / chunk.length)));
    stream.write(prefix);
    const pump = (): void => {
      while (!stream.destroyed && !stream.closed) if (!stream.write(buf)) return void stream.once("drain", pump);
    };
    stream.on("error", () => undefined);
    pump();
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("svc read --transport sse against a misbehaving server", () => {
  it("fails at once on a line that never ends, instead of spinning", async () => {
    const url = await flood("a", "data: ");
    const started = Date.now();
    const r = await runSvc(
      ["read", "svc://some-basin/s", "-s", "0", "-n", "5", "--transport", "sse", "--retries", "0"],
      {
        env: { SVC_ACCOUNT_ENDPOINT: url, SVC_BASIN_ENDPOINT: url, SVC_ACCESS_TOKEN: "t0k3n-for-tests" },
        timeoutMs: 20_000,
      },
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain("longer than 8 MiB");
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 30_000);

  it("ends after the heartbeat timeout when bytes flow but no event comes", async () => {
    const url = await flood(": keep-alive comment\n");
    const c = new SvcClient({ accountEndpoint: url, basinEndpoint: url, accessToken: "t0k3n-for-tests", retries: 0 });
    const started = Date.now();
    const e = await (async () => {
      for await (const _ of c
        .basin("some-basin")
        .stream("s")
        .read({ seqNum: 0 }, { count: 5 }, { transport: "sse", heartbeatTimeoutMs: 1_500 }))
        break;
    })().catch((err: unknown) => err);
    await c.close();
    expect((e as Error).message).toContain("no message from the server for 1.5 s");
    expect(Date.now() - started).toBeLessThan(8_000);
  }, 20_000);
});

describe("the event-stream line splitter", () => {
  it("gives the same lines whatever the chunking (CR, LF, CRLF, split anywhere)", async () => {
    const text = 'event: batch\r\nid: 3,1,5\rdata: {"a":1}\n\ndata: x\r\n\r\n: comment\rdata: y\n\n';
    const whole = new LineSplitter(1024).push(text);
    const split = new LineSplitter(1024);
    const oneByOne = [...text].flatMap((c) => split.push(c));
    expect(oneByOne).toEqual(whole);
    expect(whole).toEqual([
      "event: batch",
      "id: 3,1,5",
      'data: {"a":1}',
      "",
      "data: x",
      "",
      ": comment",
      "data: y",
      "",
    ]);
    async function* bytes(): AsyncGenerator<Uint8Array> {
      for (const b of Buffer.from(text)) yield Uint8Array.of(b);
    }
    const events = [];
    for await (const ev of sseEvents(bytes())) events.push(ev);
    expect(events).toEqual([
      { event: "batch", data: '{"a":1}', id: "3,1,5" },
      { event: "message", data: "x", id: undefined },
      { event: "message", data: "y", id: undefined },
    ]);
  });

  it("refuses a line past its bound, also when it arrives in pieces", () => {
    const s = new LineSplitter(10);
    expect(s.push("abcde")).toEqual([]);
    expect(() => s.push("fghijk")).toThrow(/longer than/);
    expect(() => new LineSplitter(10).push("a".repeat(11) + "\n")).toThrow(/longer than/);
  });
});
