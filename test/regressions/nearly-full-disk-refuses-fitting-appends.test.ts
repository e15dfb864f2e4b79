/**
 * Bug (user trial): on a nearly full disk lite refused appends that fit. Once the disk had
 * filled, with 15 MiB free again 0 of 10 appends succeeded: to take a write past the space
 * already reserved, the reserve asked the disk for the write plus a whole extension (16 MiB,
 * up to 256 MiB) and refused the write when it could not have all of it.
 *
 * Now, when the whole extension cannot be had, the reserve asks for what the write needs, and
 * only a write that cannot fit is refused (507 storage_full). Needs root to mount a small
 * tmpfs; skipped with a note otherwise.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { liteClient, startLite } from "../helpers/lite.js";
import { fillDisk, freeBytes, freeSpace, mountTmpfs, unmount } from "../helpers/tmpfs.js";

const MiB = 1 << 20;
const disk = mountTmpfs("svc-nearly-full-", "64m");
if (!disk) console.warn("nearly-full-disk-refuses-fitting-appends: skipped (mounting a tmpfs needs root)");
afterAll(() => unmount(disk));

describe.skipIf(!disk)("a nearly full disk", () => {
  it("takes every append that fits, and refuses only once the disk cannot hold the next one", async () => {
    const dataDir = join(disk!, "data");
    mkdirSync(dataDir, { mode: 0o700 });
    const lite = await startLite({ dataDir });
    const client = liteClient(lite);
    try {
      expect(
        (
          await client.call("POST", "/v1/basins", {
            json: { basin: "nearly-full", config: { create_stream_on_append: true } },
          })
        ).status,
      ).toBe(201);
      const append = async (bytes: number, i: number): Promise<number> => {
        const body = `${i}-`.padEnd(bytes, "x");
        return (
          await client.call("POST", "/v1/streams/s/records", { basin: "nearly-full", json: { records: [{ body }] } })
        ).status;
      };

      // The disk fills up: appends run until the space lite reserved is gone too.
      const filler = fillDisk(disk!);
      for (const size of [512 * 1024, 64 * 1024]) {
        let status = 200;
        for (let i = 0; i < 400 && status === 200; i++) status = await append(size, i);
        expect(status).toBe(507);
      }

      // 15 MiB come free: the next 10 appends (64 KiB each) fit, and are taken.
      freeSpace(filler, 15 * MiB);
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) statuses.push(await append(64 * 1024, i));
      expect(statuses).toEqual(Array(10).fill(200));

      // Appends of 512 KiB go on until the disk cannot hold one (with lite's 1 MiB of slack).
      let taken = 0;
      while (taken < 100 && (await append(512 * 1024, taken)) === 200) taken++;
      expect(taken).toBeGreaterThan(10);
      expect(taken).toBeLessThan(100);
      expect(freeBytes(disk!)).toBeLessThan(3 * MiB);
    } finally {
      await client.close();
      await lite.stop();
    }
  }, 60_000);
});
