/**
 * Bug (issue 45, item 7): some errors came without the `hint:` line every error has (docs/
 * conventions.md, "Errors"): `--whole` with an input over 1 MiB, a line that does not match
 * `--input-template` (or whose %T is not a time), an input too large for `--atomic`, and a
 * full disk under stdout (`svc read … > /dev/full` printed one bare line, outside the sink: no
 * hint, no JSON line with --json) or under `-o FILE`.
 *
 * Fix: each says what to do: `--chunk` for a whole input over 1 MiB (`svc read --join` puts
 * it back together); the template's rule with `--on-error skip` and `--dry-run`; the batches
 * of an input without --atomic; for a full disk, free space or write elsewhere (the output is
 * incomplete, a read with --checkpoint starts again after the last batch written).
 * stdout's failure goes through the sink like any other error (exit 1, code `io`).
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";
import { SVC_BIN } from "../helpers/cli.js";

let d: DataEnv;
let uri: string;
beforeAll(async () => {
  d = await dataEnv();
  uri = await d.newStream("hints");
  expect((await d.svc(["append", uri, "-q"], { stdin: "a\nb\nc\n" })).code).toBe(0);
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

function hint(stderr: string): string | undefined {
  return stderr
    .split("\n")
    .find((l) => l.startsWith("hint: "))
    ?.slice(6);
}

/** `svc args` with stdout on /dev/full. */
function toFullDisk(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const out = openSync("/dev/full", "w");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SVC_BIN, ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", FORCE_COLOR: "0", ...d.env },
      stdio: ["ignore", out, "pipe"],
    });
    closeSync(out);
    let stderr = "";
    child.stderr!.setEncoding("utf8").on("data", (s: string) => (stderr += s));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

describe("input errors of svc append", () => {
  it("--whole with an input over 1 MiB", async () => {
    const r = await d.svc(["append", uri, "--whole", "--dry-run"], { stdin: "x".repeat(1024 * 1024 + 1) });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain("too large for one record");
    expect(hint(r.stderr)).toBe(
      "add --chunk to append it as several records of up to 1 MiB each, which `svc read --join` puts back together byte for byte",
    );
  });

  it("a line that does not match --input-template", async () => {
    const r = await d.svc(["append", uri, "--input-template", "%T %v"], { stdin: "no time here\n" });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain("does not match --input-template");
    expect(hint(r.stderr)).toBe(
      "every line must match the template, its literal text included: --on-error skip leaves out the lines that do not (with a warning), and --dry-run checks a whole input without sending anything",
    );
  });

  it("a %T that is not a time", async () => {
    const r = await d.svc(["append", uri, "--input-template", "%T %v"], { stdin: "2026-13-45T00:00:00Z body\n" });
    expect(r.code).toBe(7);
    expect(hint(r.stderr)).toContain("--on-error skip");
  });

  it("an input too large for --atomic", async () => {
    const input = Array.from({ length: 1001 }, (_, i) => `r${i}\n`).join("");
    const r = await d.svc(["append", uri, "--atomic", "--dry-run"], { stdin: input });
    expect(r.code).toBe(7);
    expect(hint(r.stderr)).toContain("without --atomic the input goes in several batches");
  });
});

describe.skipIf(!existsSync("/dev/full"))("a full disk", () => {
  it("under stdout: the sink's lines, a hint, and the JSON line", async () => {
    const r = await toFullDisk(["read", uri, "-s", "0", "-e"]);
    expect(r.code, r.stderr).toBe(1);
    const lines = r.stderr.trim().split("\n");
    expect(lines[0]).toBe("error: cannot write to stdout: ENOSPC: no space left on device, write (io)");
    expect(lines[1]).toBe(
      "hint: the disk stdout goes to is full: free some space there, or write elsewhere (the output is incomplete; a read with --checkpoint starts again after the last batch written)",
    );
    const json = await toFullDisk(["basin", "list", "--json"]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr.trim().split("\n").pop()!).error).toMatchObject({ code: "io", exit_code: 1 });
  });

  it("under -o FILE", async () => {
    const r = await d.svc(["read", uri, "-s", "0", "-e", "-o", "/dev/full"]);
    expect(r.code).toBe(1);
    expect(hint(r.stderr)).toContain("the disk the file is on is full");
  });
});
