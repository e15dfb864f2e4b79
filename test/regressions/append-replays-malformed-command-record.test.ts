/**
 * Bug: with `--commands replay`, svc append sent a command record from its input without
 * judging the command (the line check only looked at sizes and at empty header names outside
 * a command). A fence whose token is over 36 bytes, or an unknown operation, then failed the
 * whole batch when the client judged it: exit 2 as if the flags were wrong, the line not
 * named, and `--on-error skip` could not skip it.
 *
 * Now each line is judged by the rules the client and lite share (rules/): a malformed command
 * record is a bad record like any other, named by its place: exit 7 with nothing appended, or
 * skipped with `--on-error skip`. A valid fence still replays.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

const line = (headers: [string, string][], body: string): string => `${JSON.stringify({ headers, body })}\n`;
const cases: [string, string, RegExp][] = [
  [
    "a fence over 36 bytes",
    line([["", "fence"]], "t".repeat(40)),
    /fence command payload \(the new fencing token\) must be at most 36 bytes \(got 40\)/,
  ],
  ["an unknown operation", line([["", "nope"]], "x"), /unknown command "nope"/],
];

describe.each(cases)("svc append --commands replay, %s", (_what, bad, message) => {
  const input = `{"body":"before"}\n${bad}{"body":"after"}\n`;
  const append = (uri: string, more: string[] = []) =>
    d.svc(["append", uri, "--format", "json", "--commands", "replay", ...more], { stdin: input });

  it("fails as bad input (exit 7) naming the line, and appends nothing", async () => {
    const uri = await d.newStream("fail");
    const r = await append(uri);
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toMatch(new RegExp(`stdin:2: record: ${message.source}`));
    expect((await d.svc(["read", uri, "-s", "0", "-e"])).stdout).toBe("");
  });

  it("with --on-error skip, is skipped and the lines around it are appended", async () => {
    const uri = await d.newStream("skip");
    const r = await append(uri, ["--on-error", "skip"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`skipping stdin:2: record: ${message.source}`));
    expect((await d.svc(["read", uri, "-s", "0", "-e"])).stdout).toBe("before\nafter\n");
  });
});

describe("svc append --commands replay, a valid fence", () => {
  it("is still replayed", async () => {
    const uri = await d.newStream("ok");
    const r = await d.svc(["append", uri, "--format", "json", "--commands", "replay"], {
      stdin: `{"body":"a"}\n${line([["", "fence"]], "writer-2")}`,
    });
    expect(r.code, r.stderr).toBe(0);
    const read = await d.svc(["read", uri, "-s", "0", "-e", "--format", "json"]);
    expect(read.stdout).toContain('"body":"writer-2"');
  });
});
