/**
 * Bug (user trial): `--on-error skip` did not skip an oversized line:
 * `(echo small; head -c 1100000 /dev/zero | tr '\0' a; echo; echo after) | svc append URI
 * --on-error skip` exited 7 and appended nothing.
 *
 * Now, with `--on-error skip`, a line too long to be a record is dropped as it streams in (never
 * buffered whole), reported with its file:line and size like any malformed record, and the
 * lines around it are appended; the lines after it keep their numbers. Without the flag it
 * still fails early with exit 7 (what came before it may have been sent, as the summary says).
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RecordSplitter, type Segment } from "../../src/format/record-split.js";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

const input = `small\n${"a".repeat(1_100_000)}\nafter\n`;

describe("svc append --on-error skip", () => {
  it("skips an oversized line and appends the others", async () => {
    const uri = await d.newStream("skip");
    const r = await d.svc(["append", uri, "--on-error", "skip"], { stdin: input });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("skipping stdin:2: the line is 1100000 bytes");
    expect(r.stderr).toMatch(/appended 2 records .*1 malformed skipped/);
    const read = await d.svc(["read", uri, "-s", "0", "-e"]);
    expect(read.stdout).toBe("small\nafter\n");
  });

  it("without it still fails early (exit 7), never appending the line", async () => {
    const uri = await d.newStream("fail");
    const r = await d.svc(["append", uri], { stdin: input });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain("stdin:2");
    expect((await d.svc(["read", uri, "-s", "0", "-e"])).stdout).not.toContain("after");
  });
});

describe("the record splitter with skipOversize", () => {
  const split = (text: string, cuts: number[], delimiter: string, max: number): string[] => {
    const s = new RecordSplitter({ delimiter: Buffer.from(delimiter), maxSegment: max, skipOversize: true });
    const buf = Buffer.from(text);
    const out: Segment[] = [];
    let from = 0;
    for (const c of [...new Set(cuts)].filter((c) => c > 0 && c < buf.length).sort((a, b) => a - b)) {
      out.push(...s.push(buf.subarray(from, c)));
      from = c;
    }
    out.push(...s.push(buf.subarray(from)));
    const last = s.end();
    if (last) out.push(last);
    return out.map((x) => (Buffer.isBuffer(x) ? x.toString() : `<${x.oversize}>`));
  };

  it("gives each overlong line its place and its length, however the input is cut", () => {
    fc.assert(
      fc.property(fc.array(fc.nat(80)), fc.constantFrom("\n", "\r\n", "||"), (cuts, delim) => {
        const text = ["ok", "x".repeat(30), "fine", "y".repeat(12), "z".repeat(25)].join(delim);
        expect(split(text, cuts, delim, 10)).toEqual(["ok", "<30>", "fine", "<12>", "<25>"]);
      }),
      { numRuns: 500 },
    );
  });
});
