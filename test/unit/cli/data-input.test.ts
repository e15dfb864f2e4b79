/** cli/append input side: input-records (files in order, file:line, formats, commands, limits) and the batcher. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type BatchLimits, batches } from "../../../src/cli/append/batcher.js";
import { type InputOptions, inputRecords, type Parsed } from "../../../src/cli/append/input-records.js";
import { fenceCommandRecord, trimCommandRecord } from "../../../src/format/record-command.js";
import { scratchDir } from "../../helpers/scratch.js";

function file(name: string, content: string | Buffer): string {
  const p = join(scratchDir("svc-unit-input-"), name);
  writeFileSync(p, content);
  return p;
}

const base: Omit<InputOptions, "files" | "format"> = {
  invalidUtf8: "bytes",
  headers: [],
  onBad: (w, m) => {
    throw new Error(`${w}: ${m}`);
  },
};

async function all(o: InputOptions, signal = new AbortController().signal): Promise<Parsed[]> {
  const out: Parsed[] = [];
  for await (const chunk of inputRecords(o, signal)) out.push(...chunk);
  return out;
}

const body = (p: Parsed) => Buffer.from(p.record.body).toString();

describe("cli/append > input-records", () => {
  it("reads files in order, naming file:line, with and without a final newline, CRLF stripped", async () => {
    const a = file("a.txt", "one\r\ntwo\n");
    const b = file("b.txt", "three");
    const got = await all({ ...base, files: [a, b], format: "text" });
    expect(got.map(body)).toEqual(["one", "two", "three"]);
    expect(got.map((p) => p.where)).toEqual([`${a}:1`, `${a}:2`, `${b}:1`]);
    expect(got.map((p) => p.size)).toEqual([11, 11, 13]);
  });

  it("json lines: blank lines skipped, -H headers and a default timestamp added, malformed lines reported by line", async () => {
    const f = file("a.jsonl", '{"body":"x"}\n\n{"body":"y","timestamp":5}\nnot json\n');
    const bad: string[] = [];
    const got = await all({
      ...base,
      files: [f],
      format: "json",
      headers: [{ name: Buffer.from("h"), value: Buffer.from("v") }],
      timestamp: () => 9,
      onBad: (w) => bad.push(w),
    });
    expect(got.map(body)).toEqual(["x", "y"]);
    expect(got.map((p) => p.record.timestamp)).toEqual([9, 5]);
    expect(got[0]!.record.headers).toHaveLength(1);
    expect(bad).toEqual([`${f}:4`]);
  });

  it("command records go to onCommand: dropped unless it says keep, and kept as they are (no -H headers)", async () => {
    const line = (r: { headers: { name: Uint8Array; value: Uint8Array }[]; body: Uint8Array }) =>
      JSON.stringify({
        headers: r.headers.map((h) => [
          Buffer.from(h.name).toString("base64"),
          Buffer.from(h.value).toString("base64"),
        ]),
        body: Buffer.from(r.body).toString("base64"),
      });
    const f = file(
      "c.jsonl",
      [line(fenceCommandRecord("w1")), JSON.stringify({ body: "ZGF0YQ==" }), line(trimCommandRecord(3))].join("\n"),
    );
    const seen: string[] = [];
    const got = await all({
      ...base,
      files: [f],
      format: "json-base64",
      headers: [{ name: Buffer.from("h"), value: Buffer.from("v") }],
      onCommand: (where, cmd) => {
        seen.push(`${where} ${cmd.op}`);
        return cmd.op === "fence";
      },
    });
    expect(seen).toEqual([`${f}:1 fence`, `${f}:3 trim`]);
    expect(got.map(body)).toEqual(["w1", "data"]);
    expect(got[0]!.record.headers).toHaveLength(1); // the fence record untouched
    expect(got[1]!.record.headers).toHaveLength(1); // the data record got -H
  });

  it("binary: each file is one record; over 1 MiB is reported", async () => {
    const small = file("s.bin", Buffer.from([0, 1, 2, 255]));
    const big = file("b.bin", Buffer.alloc(1024 * 1024 + 1));
    const bad: string[] = [];
    const got = await all({ ...base, files: [small, big], format: "binary", onBad: (w, m) => bad.push(`${w}: ${m}`) });
    expect(got.map((p) => [...p.record.body])).toEqual([[0, 1, 2, 255]]);
    expect(bad[0]).toMatch(/b\.bin: the input is over 1048576 bytes/);
  });

  it("stops after maxRecords, and at once when aborted", async () => {
    const f = file("n.txt", Array.from({ length: 50 }, (_, i) => `${i}`).join("\n"));
    expect((await all({ ...base, files: [f], format: "text", maxRecords: 7 })).map(body)).toEqual([
      "0",
      "1",
      "2",
      "3",
      "4",
      "5",
      "6",
    ]);
    const ac = new AbortController();
    ac.abort();
    expect(await all({ ...base, files: [f], format: "text" }, ac.signal)).toEqual([]);
  });
});

async function* source(chunks: (Parsed[] | number)[]): AsyncGenerator<Parsed[]> {
  for (const c of chunks) {
    if (typeof c === "number") await new Promise((r) => setTimeout(r, c));
    else yield c;
  }
}
const rec = (n: number, size = 10): Parsed => ({
  record: { headers: [], body: Buffer.from(String(n)) },
  size,
  where: `in:${n}`,
});
async function collect(chunks: (Parsed[] | number)[], limits: BatchLimits): Promise<number[][]> {
  const out: number[][] = [];
  for await (const b of batches(source(chunks), limits, new AbortController().signal))
    out.push(b.records.map((p) => Number(p.where.slice(3))));
  return out;
}

describe("cli/append > batcher", () => {
  it("cuts at maxRecords and before maxBytes would be exceeded", async () => {
    expect(
      await collect([[rec(1), rec(2), rec(3), rec(4), rec(5)]], { lingerMs: 1000, maxRecords: 2, maxBytes: 1000 }),
    ).toEqual([[1, 2], [3, 4], [5]]);
    expect(
      await collect([[rec(1, 40), rec(2, 40), rec(3, 40)]], { lingerMs: 1000, maxRecords: 10, maxBytes: 100 }),
    ).toEqual([[1, 2], [3]]);
  });

  it("sends a batch linger ms after its first record, and the rest when the input ends", async () => {
    expect(await collect([[rec(1)], 80, [rec(2)], [rec(3)]], { lingerMs: 20, maxRecords: 10, maxBytes: 1000 })).toEqual(
      [[1], [2, 3]],
    );
    expect(await collect([[rec(1)], 30, [rec(2)]], { lingerMs: Infinity, maxRecords: 10, maxBytes: 1000 })).toEqual([
      [1, 2],
    ]);
  });
});
