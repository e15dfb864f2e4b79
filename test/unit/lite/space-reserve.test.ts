/**
 * The data file's space reserve (src/lite/storage/space-reserve.ts): extensions allocate real
 * blocks (not a sparse length) through the long-lived fallocate helper, and where fallocate is
 * missing they write zeros instead; either way the file then holds what was asked for.
 */
import { closeSync, openSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SpaceReserve } from "../../../src/lite/storage/space-reserve.js";
import { scratchDir } from "../../helpers/scratch.js";

const MiB = 1024 * 1024;
const savedPath = process.env.PATH;
afterEach(() => {
  process.env.PATH = savedPath;
});

function freshFile(): string {
  const file = join(scratchDir("svc-reserve-"), "data.mdb");
  closeSync(openSync(file, "w"));
  return file;
}

async function grow(file: string): Promise<void> {
  const reserve = new SpaceReserve(file, () => 0, { minChunk: MiB, maxChunk: 4 * MiB });
  try {
    await reserve.refill(3 * MiB);
    expect(reserve.tryAdmit(3 * MiB)).toBe(true);
    // Later extensions go to the same helper.
    await reserve.refill(6 * MiB);
  } finally {
    reserve.close();
  }
  const st = statSync(file);
  expect(st.size).toBeGreaterThanOrEqual(6 * MiB);
  expect(st.blocks * 512).toBeGreaterThanOrEqual(st.size); // allocated, not a sparse hole
}

describe("space reserve", () => {
  it("extends the data file with allocated blocks through fallocate", async () => {
    await grow(freshFile());
  });

  it("writes zeros where fallocate is not installed", async () => {
    const bin = scratchDir("svc-reserve-bin-");
    symlinkSync("/bin/sh", join(bin, "sh"));
    writeFileSync(join(bin, "README"), "sh only: no fallocate here\n");
    process.env.PATH = bin;
    await grow(freshFile());
  });
});
