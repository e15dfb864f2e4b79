/**
 * Bug: svc append judged each input line by its metered size only, while the client and lite
 * also refuse a record that could not fit one read frame (a record of many tiny headers takes
 * up to twice its metered size when read). A JSON line of 262,140 headers `a: b` (1 MiB
 * metered, ~2 MiB when read) passed the line check, so the whole batch around it was refused
 * when sent: exit 2 as if the flags were wrong, the message named "record 0" of a batch
 * instead of the line, and with `--on-error skip` the good lines of that batch were lost too.
 *
 * Now svc append judges each line by the same rules as the client and lite (rules/records.ts):
 * the line is a bad record named by its place: exit 7, nothing from it on appended (what came
 * before may have been sent, as the note says), or skipped with `--on-error skip` while the
 * other lines are appended; on either transport.
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

const huge = JSON.stringify({ headers: Array.from({ length: 262_140 }, () => ["a", "b"]), body: "x" });
const input = `{"body":"before"}\n${huge}\n{"body":"after"}\n`;

describe.each(["session", "unary"])("svc append --transport %s, a line too big to read back", (transport) => {
  it("fails as bad input (exit 7) naming the line, and appends nothing from it on", async () => {
    const uri = await d.newStream("fail");
    const r = await d.svc(["append", uri, "--format", "json", "--transport", transport], { stdin: input });
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toMatch(
      /stdin:2: record would take 2097145 bytes when read \(its 262140 headers cost more there than metered\); the limit is 2097087/,
    );
    expect((await d.svc(["read", uri, "-s", "0", "-e"])).stdout).not.toContain("after");
  });

  it("with --on-error skip, is skipped and the lines around it are appended", async () => {
    const uri = await d.newStream("skip");
    const r = await d.svc(["append", uri, "--format", "json", "--transport", transport, "--on-error", "skip"], {
      stdin: input,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("skipping stdin:2: record would take 2097145 bytes when read");
    expect((await d.svc(["read", uri, "-s", "0", "-e"])).stdout).toBe("before\nafter\n");
  });
});
