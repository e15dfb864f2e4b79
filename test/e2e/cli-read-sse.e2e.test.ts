/**
 * `svc read --transport sse`: the SSE read session of protocol.md
 * §6.9 goes through the client's one road and the same resume loop as framed sessions. The
 * CLI prints what a framed read prints; through a proxy that cuts every connection, the client
 * resumes with Last-Event-ID and delivers every record exactly once, in order.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SvcClient } from "../../src/client/client.js";
import { sseEvents } from "../../src/client/sse-read.js";
import { runSvc } from "../helpers/cli.js";
import { type FaultProxy, startFaultProxy } from "../helpers/fault-proxy.js";
import { type Lite, startLite } from "../helpers/lite.js";

let lite: Lite;
let proxy: FaultProxy;
let env: Record<string, string>;
const basin = `sse-read-${process.pid}`;
const RECORDS = 20_000;

beforeAll(async () => {
  lite = await startLite();
  env = { SVC_ACCOUNT_ENDPOINT: lite.url, SVC_BASIN_ENDPOINT: lite.url, SVC_ACCESS_TOKEN: lite.token };
  const client = new SvcClient({ accountEndpoint: lite.url, basinEndpoint: lite.url, accessToken: lite.token });
  await client.basins.create(basin);
  await client.basin(basin).streams.create("s");
  const enc = new TextEncoder();
  for (let at = 0; at < RECORDS; at += 1000) {
    await client
      .basin(basin)
      .stream("s")
      .append({
        records: Array.from({ length: 1000 }, (_, i) => ({ headers: [], body: enc.encode(`record-${at + i}`) })),
      });
  }
  await client
    .basin(basin)
    .stream("s")
    .append({ records: [{ headers: [], body: new Uint8Array([0, 255, 10, 13]) }] });
  await client.close();
  proxy = await startFaultProxy(lite.port);
});

afterAll(async () => {
  await proxy?.close();
  await lite?.stop();
});

describe("svc read --transport sse", () => {
  it("prints exactly what a framed read session prints, bytes included", async () => {
    const args = ["read", `svc://${basin}/s`, "-s", String(RECORDS - 2), "-n", "3", "--format", "json-base64"];
    const sse = await runSvc([...args, "--transport", "sse"], { env });
    const framed = await runSvc(args, { env });
    expect(sse.code, sse.stderr).toBe(0);
    expect(framed.code, framed.stderr).toBe(0);
    expect(sse.stdout).toBe(framed.stdout);
    expect(sse.stdout.trimEnd().split("\n")).toHaveLength(3);
    expect(JSON.parse(sse.stdout.trimEnd().split("\n")[2]!).body).toBe(
      Buffer.from([0, 255, 10, 13]).toString("base64"),
    );
  });

  it("text output and -e (stop at the tail)", async () => {
    const r = await runSvc(["read", `svc://${basin}/s`, "-s", "10", "-n", "2", "--transport", "sse"], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("record-10\nrecord-11\n");
    const tail = await runSvc(
      ["read", `svc://${basin}/s`, "--tail-offset", "2", "-e", "--transport", "sse", "--format", "json"],
      { env },
    );
    expect(tail.code, tail.stderr).toBe(0);
    expect(
      tail.stdout
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l).seq_num),
    ).toEqual([RECORDS - 1, RECORDS]);
  });

  it("resumes with Last-Event-ID through cut connections: every record once, in order", async () => {
    const client = new SvcClient({
      accountEndpoint: proxy.url,
      basinEndpoint: proxy.url,
      accessToken: lite.token,
      retries: 20,
    });
    // Each connection carries 120-240 KB: more than one event (≤ 1000 records, ~80 KB), far less than the read.
    proxy.cutEachConnectionAfter(() => 120_000 + Math.floor(Math.random() * 120_000));
    const cutsBefore = proxy.cuts;
    const seen: number[] = [];
    let reconnects = 0;
    try {
      for await (const ev of client
        .basin(basin)
        .stream("s")
        .read({ seqNum: 0 }, { count: RECORDS }, { transport: "sse", onReconnect: () => reconnects++ })) {
        if (ev.type === "batch") seen.push(...ev.records.map((r) => r.seqNum));
      }
    } finally {
      proxy.cutEachConnectionAfter(undefined);
      await client.close();
    }
    expect(proxy.cuts - cutsBefore).toBeGreaterThan(3);
    expect(reconnects).toBeGreaterThan(3);
    expect(seen).toEqual(Array.from({ length: RECORDS }, (_, i) => i));
  });
});

describe("sseEvents (the event-stream grammar)", () => {
  it("parses the same events from any split, with LF, CRLF or CR line ends, comments and multi-line data", async () => {
    const text =
      ': comment\r\nevent: batch\r\nid: 1,2,3\r\ndata: {"a":\r\ndata: 1}\r\n\r\nevent: ping\rdata: {}\r\rdata: [DONE]\n\n';
    const bytes = new TextEncoder().encode(text);
    const expected = [
      { event: "batch", id: "1,2,3", data: '{"a":\n1}' },
      { event: "ping", id: undefined, data: "{}" },
      { event: "message", id: undefined, data: "[DONE]" },
    ];
    for (const size of [1, 2, 3, 7, bytes.length]) {
      async function* chunks(): AsyncGenerator<Uint8Array> {
        for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
      }
      const got = [];
      for await (const e of sseEvents(chunks())) got.push(e);
      expect(got).toEqual(expected);
    }
  });
});
