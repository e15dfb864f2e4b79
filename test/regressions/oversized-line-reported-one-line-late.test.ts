/**
 * Bug: an oversized input line was reported one line too late (line 3 as
 * `:4`, stdin's only line as `stdin:2`), because both the splitter (src/format/record-split.ts)
 * and the reader (src/cli/data/input-records.ts) counted it. The splitter now names the line
 * in its error and the reader uses that.
 */
import { describe, expect, it } from "vitest";
import { RecordInputError } from "../../src/format/record-input.js";
import { RecordSplitter } from "../../src/format/record-split.js";
import { runSvc } from "../helpers/cli.js";

const BIG = "x".repeat(1024 * 1024 + 100);

function append(stdin: string, ...args: string[]) {
  return runSvc(["append", "svc://some-basin-01/s", "--dry-run", ...args], {
    stdin,
    env: {
      SVC_ACCOUNT_ENDPOINT: "http://127.0.0.1:9",
      SVC_BASIN_ENDPOINT: "http://127.0.0.1:9",
      SVC_ACCESS_TOKEN: "t",
    },
  });
}

describe("oversized lines are named by their own line number", () => {
  it.each([
    ["line 3 of 4", `a\nb\n${BIG}\nd\n`, "stdin:3:"],
    ["stdin's only line, with a newline", `${BIG}\n`, "stdin:1:"],
    ["stdin's only line, without a newline", BIG, "stdin:1:"],
    ["line 2, CRLF input", `a\r\n${BIG}\r\nc\r\n`, "stdin:2:"],
  ])("%s", async (_what, stdin, where) => {
    const r = await append(stdin);
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(where);
  });

  it("json input: a record too large is named by its line too", async () => {
    const r = await append(`{"body":"a"}\n{"body":"${BIG}"}\n`, "--format", "json");
    expect(r.code).toBe(7);
    expect(r.stderr).toContain("stdin:2:");
  });

  it("the splitter's error carries the line, whether found in push or in end", () => {
    const s = new RecordSplitter({ maxSegment: 10 });
    expect(() => s.push(Buffer.from(`a\nb\n${"x".repeat(12)}\nz`))).toThrow(
      expect.objectContaining({ line: 3 }) as RecordInputError,
    );
    const t = new RecordSplitter({ maxSegment: 10 });
    expect(() => t.push(Buffer.from("y".repeat(20)))).toThrow(expect.objectContaining({ line: 1 }) as RecordInputError);
  });
});
