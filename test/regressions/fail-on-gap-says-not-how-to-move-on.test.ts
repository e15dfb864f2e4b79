/**
 * Bug (issue 45, item 7): `svc read URI --checkpoint F --fail-on-gap` stopped at records that
 * were trimmed before it read them (exit 5) and kept F before the gap, on purpose: a run must
 * not skip a loss unasked. But then every rerun failed the same way, and nothing said how to
 * accept the loss and move on: the error had no `hint:` line.
 *
 * Fix: the checkpoint still stays before the gap (each run stops there until someone decides),
 * and the error's hint names the command that moves on: for a one-stream checkpoint, setting it
 * past the gap (`echo 8 > F`), after which the same command goes on from 8; without a
 * checkpoint, `svc read URI -s 8`; for a tail of several streams (a JSON checkpoint), one run
 * without --fail-on-gap, which warns of each gap and moves the checkpoint past it. Each hint
 * here is followed as written, and then the read goes on.
 *
 * A trim is carried out by the sweep a sweep period after it (protocol.md §7.7): each trim
 * here waits until a read from 0 starts at its point (lite sweeps every 100 ms).
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";
import { eventually } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";

let d: DataEnv;
let dir: string;
beforeAll(async () => {
  d = await dataEnv({ SVC_LITE_SWEEP_MS: "100" });
  dir = scratchDir("svc gap hint ");
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

async function ok(args: string[], stdin = ""): Promise<{ stdout: string; stderr: string }> {
  const r = await d.svc(args, { stdin });
  expect(r.code, `svc ${args.join(" ")}\n${r.stderr}`).toBe(0);
  return r;
}

const lines = (n: number, from = 0): string => Array.from({ length: n }, (_, i) => `r${from + i}\n`).join("");

/** A stream holding r0..r9, trimmed to 8 once the sweep has carried the trim out. */
async function trimmedStream(name: string): Promise<string> {
  const uri = await d.newStream(name);
  await ok(["append", uri, "-q"], lines(10));
  await ok(["trim", uri, "8", "--yes"]);
  await eventually(async () => (await ok(["read", uri, "-s", "0", "-n", "1"])).stdout === "r8\n");
  return uri;
}

function hintOf(stderr: string): string {
  const hint = stderr.split("\n").find((l) => l.startsWith("hint: "));
  expect(hint, stderr).toBeDefined();
  return hint!.slice("hint: ".length);
}

describe("--fail-on-gap says how to move on", () => {
  it("a one-stream checkpoint: the hint's command sets it past the gap, and the same read goes on", async () => {
    const uri = await trimmedStream("ckpt");
    // A path with a space: the hint quotes it for the shell.
    const file = join(dir, "read one.ckpt");
    writeFileSync(file, "3\n");
    const read = ["read", uri, "-e", "--checkpoint", file, "--fail-on-gap"];
    for (let run = 0; run < 2; run++) {
      const failed = await d.svc(read);
      expect(failed.code, failed.stderr).toBe(5);
      expect(readFileSync(file, "utf8").trim()).toBe("3");
      expect(hintOf(failed.stderr)).toBe(
        `the checkpoint stays before the gap, so each run stops here: to skip 3..7 and go on from 8, set it past them (\`echo 8 > '${file}'\`), then run the command again`,
      );
    }
    const command = /`(echo 8 > .*)`/.exec(hintOf((await d.svc(read)).stderr))![1]!;
    execFileSync("sh", ["-c", command]);
    const r = await ok(read);
    expect(r.stdout).toBe("r8\nr9\n");
    expect(r.stderr).not.toContain("trimmed or expired");
  });

  it("svc tail of one stream with a checkpoint: the same hint", async () => {
    const uri = await trimmedStream("tail-ckpt");
    const file = join(dir, "tail.ckpt");
    writeFileSync(file, "3\n");
    const failed = await d.svc(["tail", uri, "--checkpoint", file, "--fail-on-gap"]);
    expect(failed.code, failed.stderr).toBe(5);
    expect(hintOf(failed.stderr)).toContain(`\`echo 8 > '${file}'\``);
  });

  it("no checkpoint: the hint's read starts after the gap", async () => {
    const uri = await trimmedStream("seq");
    const failed = await d.svc(["read", uri, "-s", "5", "-e", "--fail-on-gap"]);
    expect(failed.code, failed.stderr).toBe(5);
    const hint = hintOf(failed.stderr);
    expect(hint).toBe(`the records from 8 on are there: \`svc read ${uri} -s 8\` reads on from 8`);
    const r = await ok(["read", uri, "-s", "8", "-e", "--fail-on-gap"]);
    expect(r.stdout).toBe("r8\nr9\n");
  });

  it("a tail of several streams: one run without --fail-on-gap moves its checkpoint past the gap", async () => {
    const uri = await trimmedStream("many-a");
    const file = join(dir, "several.json");
    writeFileSync(file, `${JSON.stringify({ [uri]: 3 })}\n`);
    const pattern = `svc://${d.basin}/many-*`;
    const tail = ["tail", pattern, "--checkpoint", file, "--no-prefix"];
    const failed = await d.svc([...tail, "--fail-on-gap"]);
    expect(failed.code, failed.stderr).toBe(5);
    expect(hintOf(failed.stderr)).toBe(
      `${file} keeps ${uri} before the gap, so each run stops here: to accept the loss, run the command once without --fail-on-gap (it warns of each gap, goes on past it and moves ${file} on)`,
    );
    const accepted = await ok(tail);
    expect(accepted.stderr).toContain(`records 3..7 of ${uri} were trimmed or expired before they were read`);
    expect(accepted.stdout).toBe("r8\nr9\n");
    const again = await ok([...tail, "--fail-on-gap"]);
    expect(again.stdout).toBe("");
  });
});
