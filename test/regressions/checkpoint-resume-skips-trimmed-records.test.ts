/**
 * Bug (user trial): a checkpoint resume skipped trimmed or expired records without a word. With
 * a checkpoint at 3 and the stream trimmed to 8, `svc read URI -e --checkpoint F` said "resuming
 * from checkpoint F at 3", printed from 8 and exited 0; `svc tail 'svc://b/p*' --checkpoint F`
 * did the same per stream. A script that must not skip records could not tell.
 *
 * Expected: stderr names what was lost ("records 3..7 of URI were trimmed or expired before
 * they were read; continuing at 8") and the read goes on; with `--fail-on-gap` it stops there
 * with exit 5, printing nothing past the gap and leaving the checkpoint where it was.
 *
 * A trim is carried out by the sweep a sweep period after it (protocol.md §7.7): each trim
 * here waits until a read from 0 starts at its point (lite sweeps every 100 ms).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";
import { eventually } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";

let d: DataEnv;
let dir: string;
beforeAll(async () => {
  d = await dataEnv({ SVC_LITE_SWEEP_MS: "100" });
  dir = scratchDir("svc-gap-");
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

/** Trims `uri` to 8 and waits until the sweep has carried it out (a read from 0 starts at r8). */
async function trimTo8(uri: string): Promise<void> {
  await ok(["trim", uri, "8", "--yes"]);
  await eventually(async () => (await ok(["read", uri, "-s", "0", "-n", "1"])).stdout === "r8\n");
}

/** A stream holding r0..r9 whose checkpoint file says 3, then trimmed to 8. */
async function trimmedPastCheckpoint(name: string): Promise<{ uri: string; file: string }> {
  const uri = await d.newStream(name);
  const file = join(dir, `${name}.ckpt`);
  await ok(["append", uri, "-q"], lines(10));
  const first = await ok(["read", uri, "-s", "0", "-n", "3", "--checkpoint", file]);
  expect(first.stdout).toBe(lines(3));
  expect(readFileSync(file, "utf8").trim()).toBe("3");
  await trimTo8(uri);
  return { uri, file };
}

describe("a read resumed from a checkpoint after a trim", () => {
  it("says which records were lost, and goes on", async () => {
    const { uri, file } = await trimmedPastCheckpoint("warn");
    const r = await ok(["read", uri, "-e", "--checkpoint", file]);
    expect(r.stdout).toBe("r8\nr9\n");
    expect(r.stderr).toContain(`records 3..7 of ${uri} were trimmed or expired before they were read; continuing at 8`);
    expect(readFileSync(file, "utf8").trim()).toBe("11"); // past the trim record
  });

  it("--fail-on-gap: exit 5, nothing printed past the gap, the checkpoint kept", async () => {
    const { uri, file } = await trimmedPastCheckpoint("fail");
    const r = await d.svc(["read", uri, "-e", "--checkpoint", file, "--fail-on-gap"]);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`records 3..7 of ${uri} were trimmed or expired before they were read`);
    expect(readFileSync(file, "utf8").trim()).toBe("3");
  });

  it("an explicit -s N names the records that are gone too", async () => {
    const { uri } = await trimmedPastCheckpoint("seq");
    const r = await ok(["read", uri, "-s", "5", "-e"]);
    expect(r.stdout).toBe("r8\nr9\n");
    expect(r.stderr).toContain(`records 5..7 of ${uri} were trimmed or expired before they were read`);
    const beginning = await ok(["read", uri, "--from-beginning", "-e"]);
    expect(beginning.stderr).not.toContain("trimmed or expired");
  });

  it("svc tail of one stream resumes from its checkpoint and says the same", async () => {
    const uri = await d.newStream("tail-one");
    const file = join(dir, "tail-one.ckpt");
    await ok(["append", uri, "-q"], lines(3));
    expect((await ok(["tail", uri, "-n", "3", "--checkpoint", file])).stdout).toBe(lines(3));
    await ok(["append", uri, "-q"], lines(7, 3));
    await trimTo8(uri);
    const r = await ok(["tail", uri, "--checkpoint", file]);
    expect(r.stdout).toBe("r8\nr9\n");
    expect(r.stderr).toContain(`records 3..7 of ${uri} were trimmed or expired before they were read`);
  });
});

describe("a tail of several streams resumed from its checkpoint after a trim", () => {
  it("names each stream's lost records; --fail-on-gap exits 5", async () => {
    const a = await d.newStream("pat-a");
    const b = await d.newStream("pat-b");
    const pattern = `svc://${d.basin}/pat-*`;
    const file = join(dir, "several.json");
    await ok(["append", a, "-q"], lines(3));
    await ok(["append", b, "-q"], lines(3));
    await ok(["tail", pattern, "-n", "3", "--checkpoint", file]);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ [a]: 3, [b]: 3 });
    await ok(["append", a, "-q"], lines(7, 3));
    await trimTo8(a);
    await ok(["append", b, "-q"], "r3\n");

    const failed = await d.svc(["tail", pattern, "--checkpoint", file, "--fail-on-gap", "--no-prefix"]);
    expect(failed.code, failed.stderr).toBe(5);
    expect(failed.stderr).toContain(`records 3..7 of ${a} were trimmed or expired before they were read`);
    expect(failed.stdout).not.toContain("r8");
    expect(JSON.parse(readFileSync(file, "utf8"))[a]).toBe(3);

    const r = await ok(["tail", pattern, "--checkpoint", file, "--no-prefix"]);
    expect(r.stderr).toContain(`records 3..7 of ${a} were trimmed or expired before they were read; continuing at 8`);
    expect(r.stderr).not.toContain(`of ${b} were`);
    expect(
      r.stdout
        .split("\n")
        .filter((l) => l !== "")
        .sort(),
    ).toEqual([...(failed.stdout.includes("r3") ? [] : ["r3"]), "r8", "r9"].sort());
  });
});
