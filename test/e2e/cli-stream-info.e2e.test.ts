/**
 * `svc stream info` against lite: every part on a stream with records and a trim, an empty
 * stream, an encrypted stream with and without its key, a token that may see only part of it
 * (unknown parts say why, exit 0), and a stream that does not exist (exit 4).
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../helpers/lite.js";
import { type DataEnv, dataEnv } from "./cli-data-setup.js";

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

interface Info {
  uri: string;
  basin: string;
  stream: string;
  created_at: string | null;
  deleted_at: string | null;
  cipher: string | null;
  config: Record<string, unknown> | null;
  tail: { seq_num: number; timestamp: number } | null;
  first: { seq_num: number; timestamp: number } | null;
  stored_bytes: { bytes: number; at: number } | null;
  unknown: Record<string, string>;
}

const info = async (uri: string, env: Record<string, string> = {}): Promise<Info> => {
  const r = await d.svc(["stream", "info", uri, "--json"], { env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Info;
};

describe("svc stream info", () => {
  it("config, created, tail, the first readable record after a trim, stored bytes", async () => {
    const uri = await d.newStream("info");
    expect((await d.svc(["append", uri], { stdin: "r0\nr1\nr2\nr3\nr4\n" })).code).toBe(0);
    expect((await d.svc(["trim", uri, "2", "--yes"])).code).toBe(0);
    // Once the sweep has carried the trim out (protocol.md §7.7), the first readable record is 2.
    const i = await eventually(async () => {
      const got = await info(uri);
      return got.first?.seq_num === 2 && got;
    });
    const records = (
      await d.svc(["read", uri, "-s", "0", "--clamp", "-e", "--format", "json", "--commands", "show"])
    ).stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { seq_num: number; timestamp: number });
    const tail = JSON.parse((await d.svc(["check-tail", uri, "--json"])).stdout) as {
      seq_num: number;
      timestamp: number;
    };
    const listed = (
      JSON.parse((await d.svc(["stream", "list", `svc://${d.basin}/${i.stream}`, "--json"])).stdout) as {
        name: string;
        created_at: string;
      }[]
    ).find((s) => s.name === i.stream)!;
    const config = JSON.parse((await d.svc(["stream", "get", uri, "--json"])).stdout) as { config: unknown };
    expect(i).toMatchObject({
      uri,
      basin: d.basin,
      created_at: listed.created_at,
      deleted_at: null,
      cipher: null,
      config: config.config,
      unknown: {},
    });
    expect(i.tail).toEqual(tail);
    expect(i.tail!.seq_num).toBe(6); // five records and the trim command record
    expect(i.first).toEqual({ seq_num: records[0]!.seq_num, timestamp: records[0]!.timestamp });
    expect(i.first!.seq_num).toBe(2);
    expect(i.stored_bytes!.bytes).toBeGreaterThan(0);
    const text = (await d.svc(["stream", "info", uri])).stdout;
    expect(text).toMatch(
      new RegExp(`^tail +6 \\(the next sequence number\\); the last record @ ${tail.timestamp} \\(`, "m"),
    );
    expect(text).toMatch(/^first +2 @ \d+ \(\d{4}-/m);
    expect(text).toMatch(/^cipher +none \(not encrypted\)$/m);
    expect(text).toMatch(/^ {2}storage_class +express$/m);
  });

  it("an empty stream: tail 0, no first record", async () => {
    const uri = await d.newStream("empty");
    const i = await info(uri);
    expect(i.tail).toEqual({ seq_num: 0, timestamp: 0 });
    expect(i.first).toBeNull();
    expect(i.unknown).toEqual({});
    expect((await d.svc(["stream", "info", uri])).stdout).toMatch(/^first +none: no record is readable$/m);
  });

  it("an encrypted stream: its cipher; the first record needs the key", async () => {
    const basin = `${d.basin}-enc`;
    expect((await d.svc(["basin", "create", basin, "--stream-cipher", "aegis-256"])).code).toBe(0);
    const uri = `svc://${basin}/secret`;
    expect((await d.svc(["stream", "create", uri])).code).toBe(0);
    const key = randomBytes(32).toString("base64");
    expect((await d.svc(["append", uri], { stdin: "hidden\n", env: { SVC_ENCRYPTION_KEY: key } })).code).toBe(0);
    const without = await info(uri);
    expect(without.cipher).toBe("aegis-256");
    expect(without.first).toBeNull();
    expect(without.unknown.first).toMatch(/^400 /);
    expect(without.tail!.seq_num).toBe(1);
    const withKey = await info(uri, { SVC_ENCRYPTION_KEY: key });
    expect(withKey.first!.seq_num).toBe(0);
    expect(withKey.unknown).toEqual({});
  });

  it("a token that may see only part of it: the rest is unknown, with the server's answer", async () => {
    const uri = await d.newStream("scoped");
    const t = await d.svc([
      "token",
      "create",
      `info-${Date.now()}`,
      "--basins-exact",
      d.basin,
      "--streams-prefix",
      "",
      "--ops",
      "get-stream-config,check-tail",
    ]);
    expect(t.code, t.stderr).toBe(0);
    const i = await info(uri, { SVC_ACCESS_TOKEN: t.stdout.trim() });
    expect(i.config).not.toBeNull();
    expect(i.tail).toEqual({ seq_num: 0, timestamp: 0 });
    expect(i.unknown).toEqual({
      created_at: "403 permission_denied",
      first: "403 permission_denied",
      stored_bytes: "403 permission_denied",
    });
    const text = (await d.svc(["stream", "info", uri], { env: { SVC_ACCESS_TOKEN: t.stdout.trim() } })).stdout;
    expect(text).toMatch(/^stored +unknown \(403 permission_denied\)$/m);
  });

  it("a stream that does not exist: exit 4", async () => {
    const r = await d.svc(["stream", "info", `svc://${d.basin}/no-such-stream`]);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("stream_not_found");
  });
});
