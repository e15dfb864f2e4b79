/**
 * Bug (user trial): one round of a flapping disk wrote 1,972 log lines for 1,962 refused
 * appends: every refusal logged its own `POST … → 507 storage_full` line, burying everything
 * else on stderr.
 *
 * Now request errors that repeat are counted: a line is written at once, the ones like it
 * (differing only in their numbers) within the next second are held back, and the last of
 * them is written with their count once a second (and at shutdown), so every refusal is still
 * accounted for. Needs root to mount a small tmpfs; skipped with a note otherwise.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { liteClient, startLite } from "../helpers/lite.js";
import { fillDisk, mountTmpfs, unmount } from "../helpers/tmpfs.js";

const disk = mountTmpfs("svc-log-flood-", "48m");
if (!disk) console.warn("repeated-errors-flood-the-log: skipped (mounting a tmpfs needs root)");
afterAll(() => unmount(disk));

describe.skipIf(!disk)("a full disk refusing appends", () => {
  it("logs the refusals at most about once a second, with counts that add up to every refusal", async () => {
    const dataDir = join(disk!, "data");
    mkdirSync(dataDir, { mode: 0o700 });
    const lite = await startLite({ dataDir });
    const client = liteClient(lite);
    let refused = 0;
    const started = Date.now();
    try {
      expect(
        (
          await client.call("POST", "/v1/basins", {
            json: { basin: "log-flood", config: { create_stream_on_append: true } },
          })
        ).status,
      ).toBe(201);
      fillDisk(disk!);
      // Four writers until 150 refusals (at least 2.5 s, at most 20 s: a busy machine is slower):
      // first the space lite reserved runs out, then every append is refused.
      const writer = async (w: number): Promise<void> => {
        for (let i = 0; (refused < 150 || Date.now() - started < 2500) && Date.now() - started < 20_000; i++) {
          const body = `${w}-${i}-`.padEnd(256 * 1024 + ((w * 7919 + i) % 4096), "x");
          const res = await client.call("POST", `/v1/streams/s${w}/records`, {
            basin: "log-flood",
            json: { records: [{ body }] },
          });
          if (res.status === 507) refused++;
          else expect(res.status).toBe(200);
        }
      };
      await Promise.all([0, 1, 2, 3].map(writer));
    } finally {
      await client.close();
      await lite.stop();
    }
    const elapsed = (Date.now() - started) / 1000;
    expect(refused).toBeGreaterThan(100);
    const lines = lite
      .stderr()
      .split("\n")
      .filter((l) => / → 507 storage_full: /.test(l));
    // The streams' names differ only in a digit: one line a second for them all, one at shutdown.
    expect(lines.length).toBeLessThanOrEqual(Math.ceil(elapsed) + 2);
    const counted = lines.reduce(
      (n, l) => n + Number(/\((\d+) times like this in the last 1 s\)$/.exec(l)?.[1] ?? 1),
      0,
    );
    expect(counted).toBe(refused);
  }, 60_000);
});
