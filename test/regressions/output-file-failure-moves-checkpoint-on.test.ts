/**
 * Bug (found with issue 45, item 7): `svc read URI --checkpoint F -o FILE` stored in F the
 * position after a batch that FILE never got. A write to a file counted as done once the
 * stream took the bytes, before they were written; when the write then failed (a full disk),
 * the checkpoint had already moved past them, and a rerun would have skipped those records.
 *
 * Fix: a write to `-o FILE` is done when the bytes are written (its callback); the checkpoint
 * is stored only after that, so a failed write leaves it where it was.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";
import { scratchDir } from "../helpers/scratch.js";

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

describe.skipIf(!existsSync("/dev/full"))("a read to a file that cannot be written", () => {
  it("leaves its checkpoint where it was", async () => {
    const uri = await d.newStream("full");
    expect((await d.svc(["append", uri, "-q"], { stdin: "a\nb\nc\n" })).code).toBe(0);
    const ckpt = join(scratchDir("svc-full-"), "ckpt");
    writeFileSync(ckpt, "1\n");
    const r = await d.svc(["read", uri, "-e", "--checkpoint", ckpt, "-o", "/dev/full"]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain("cannot write to /dev/full: ENOSPC");
    expect(readFileSync(ckpt, "utf8")).toBe("1\n");
    // Then to a file that can be written: from where it stopped, nothing skipped.
    const out = join(scratchDir("svc-full-"), "out");
    expect((await d.svc(["read", uri, "-e", "--checkpoint", ckpt, "-o", out])).code).toBe(0);
    expect(readFileSync(out, "utf8")).toBe("b\nc\n");
    expect(readFileSync(ckpt, "utf8")).toBe("3\n");
  });
});
