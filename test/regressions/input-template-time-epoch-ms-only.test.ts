/**
 * Bug (user trial): `svc append --input-template '%T %v'` took only epoch milliseconds in %T;
 * a line starting `2026-01-02T03:04:05Z` was "the line does not match --input-template" with no
 * word of why, though `--timestamp` takes RFC 3339.
 *
 * Expected: %T takes what --timestamp takes (epoch ms, RFC 3339 written with a T); a line that
 * does not match says what %T takes; a time that parses but cannot be one (before 1970, past
 * 2^53 − 1) is bad input naming the line.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileInputTemplate } from "../../src/format/record-input-template.js";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

describe("--input-template %T", () => {
  it("takes epoch ms and RFC 3339", () => {
    const p = compileInputTemplate("%T %v");
    expect(p("1700000000000 a").timestamp).toBe(1700000000000);
    expect(p("2026-01-02T03:04:05Z b").timestamp).toBe(Date.parse("2026-01-02T03:04:05Z"));
    expect(p("2026-01-02T03:04:05.250+02:00 c").timestamp).toBe(Date.parse("2026-01-02T01:04:05.250Z"));
    expect(() => p("yesterday d")).toThrow(/%T takes epoch milliseconds or RFC 3339/);
    expect(() => p("2026-13-02T03:04:05Z e")).toThrow(/invalid time/);
  });

  it("appends RFC 3339 times as their epoch ms", async () => {
    const uri = await d.newStream("tpl");
    const r = await d.svc(["append", uri, "--input-template", "%T %v"], {
      stdin: "2026-01-02T03:04:05Z first\n1767323046000 second\n",
    });
    expect(r.code, r.stderr).toBe(0);
    const back = await d.svc(["read", uri, "-s", "0", "-e", "--format", "json"]);
    const times = back.stdout
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { timestamp: number }).timestamp);
    expect(times).toEqual([Date.parse("2026-01-02T03:04:05Z"), 1767323046000]);
  });

  it("a line %T cannot read names the line and what %T takes", async () => {
    const r = await d.svc(["append", await d.newStream("tpl-bad"), "--input-template", "%T %v", "--dry-run"], {
      stdin: "1700000000000 ok\nnoon fails\n",
    });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(
      'stdin:2: the line does not match --input-template "%T %v" (%T takes epoch milliseconds or RFC 3339',
    );
  });
});
