/**
 * Bug: lite aborted (glibc heap corruption inside lmdb's write worker)
 * when disk space came and went: with several writers on a small tmpfs that another process
 * filled and freed, lmdb's commits failed with ENOSPC and lmdb-js's native writer corrupted
 * its heap (`corrupted size vs. prev_size`, SIGABRT) in 8 of 10 runs, 3 of 3 here.
 *
 * Now lmdb never meets a full disk: lite allocates space to the data file ahead of lmdb and
 * admits every write against it (src/lite/storage/space-reserve.ts); when the disk cannot give
 * more, the write is refused with 507 `storage_full` before lmdb sees it.
 *
 * The test mounts a small tmpfs (needs root; skipped with a note otherwise), runs writers
 * while a filler takes and frees the remaining space, until lite's own data has filled the disk
 * (the filler finds no space left, five rounds in a row: space no longer comes and goes), and
 * checks: lite stays up, refusals are clean 507s, every acknowledged batch is at its
 * acknowledged range byte for byte with no gap, and appends succeed again once space returns.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { eventually, type Lite, liteClient, startLite } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";

function tryMount(dir: string, size: string): boolean {
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const mountPoint = scratchDir("svc-diskfull-");
const mounted = tryMount(mountPoint, "48m");
if (!mounted) console.warn("lite-aborts-when-disk-space-churns: skipped (mounting a tmpfs needs root)");

afterAll(() => {
  if (mounted) execFileSync("umount", ["-l", mountPoint], { stdio: "ignore" });
});

describe.skipIf(!mounted)("a disk whose space comes and goes", () => {
  it("refuses cleanly with 507, never aborts, and loses no acknowledged batch", async () => {
    const dataDir = join(mountPoint, "data");
    mkdirSync(dataDir);
    const lite: Lite = await startLite({ dataDir });
    const client = liteClient(lite);
    try {
      const created = await client.call("POST", "/v1/basins", {
        json: { basin: "disk-full", config: { create_stream_on_append: true } },
      });
      expect(created.status).toBe(201);

      const acked: { stream: string; start: number; end: number; bodies: string[] }[] = [];
      const refusals = new Map<string, number>();
      let stop = false;
      const writer = async (w: number): Promise<void> => {
        for (let i = 0; !stop; i++) {
          const stream = `s${w % 2}`;
          const bodies = [0, 1].map((k) =>
            `w${w}-i${i}-k${k}-`.padEnd(60_000, String.fromCharCode(97 + ((w + i + k) % 26))),
          );
          const res = await client.call("POST", `/v1/streams/${stream}/records`, {
            basin: "disk-full",
            json: { records: bodies.map((body) => ({ body })) },
          });
          if (res.status === 200) {
            const ack = res.json();
            acked.push({ stream, start: ack.start.seq_num, end: ack.end.seq_num, bodies });
          } else {
            const key = `${res.status} ${res.json().code}`;
            refusals.set(key, (refusals.get(key) ?? 0) + 1);
          }
        }
      };
      const fill = Buffer.alloc(48 << 20);
      /** Rounds in a row in which the filler found less than 1 MiB free: lite's data fills the disk. */
      let fullRounds = 0;
      const filler = async (): Promise<void> => {
        for (let n = 0; !stop; n++) {
          try {
            writeFileSync(join(mountPoint, "fill"), fill);
          } catch {
            /* the disk is full: that is the point */
          }
          let took = 0;
          try {
            took = statSync(join(mountPoint, "fill")).size;
          } catch {
            /* nothing written */
          }
          fullRounds = took < 1 << 20 ? fullRounds + 1 : 0;
          await new Promise((r) => setTimeout(r, 40 + (n % 4) * 30));
          rmSync(join(mountPoint, "fill"), { force: true });
          await new Promise((r) => setTimeout(r, 40 + (n % 3) * 40));
        }
      };
      const running = [0, 1, 2, 3].map(writer);
      const filling = filler();
      // Space comes and goes (the filler takes less each round, as lite's data grows) until
      // lite's data fills the disk (about 20 rounds, 4 s); then nothing more changes. A writer
      // that fails (lite died: its connection refused) ends the wait at once.
      const writersEnded = Promise.all(running).then(() => {
        throw new Error("the writers ended before the disk filled");
      });
      try {
        await Promise.race([eventually(async () => fullRounds >= 5, 40_000, 50), writersEnded]);
      } finally {
        stop = true;
      }
      await Promise.all([...running, filling]);
      rmSync(join(mountPoint, "fill"), { force: true });

      // lite is still up, and every refusal was a clean one.
      const health = await client.call("GET", "/health");
      expect(health.status).toBe(200);
      expect(lite.stderr()).not.toMatch(/corrupted|Aborted|unhandled rejection/);
      for (const key of refusals.keys()) expect(["507 storage_full", "500 storage"]).toContain(key);
      expect(refusals.get("507 storage_full") ?? 0).toBeGreaterThan(0);
      expect(acked.length).toBeGreaterThan(0);

      // Service resumes once space returns.
      const after = await client.call("POST", "/v1/streams/s0/records", {
        basin: "disk-full",
        json: { records: [{ body: "after" }] },
      });
      expect(after.status).toBe(200);

      // Every acknowledged batch is where its ack said, byte for byte; the streams have no gap.
      for (const stream of ["s0", "s1"]) {
        const stored: string[] = [];
        for (;;) {
          const res = await client.call("GET", `/v1/streams/${stream}/records`, {
            basin: "disk-full",
            query: { seq_num: stored.length, count: 100 },
          });
          if (res.status === 416) break; // at the tail
          expect(res.status).toBe(200);
          const records = res.json().records as { seq_num: number; body: string }[];
          for (const r of records) {
            expect(r.seq_num).toBe(stored.length);
            stored.push(r.body);
          }
          if (records.length === 0 || stored.length >= 100_000) break;
        }
        expect(stored.length).toBeGreaterThan(0);
        for (const a of acked.filter((x) => x.stream === stream)) {
          expect(stored.slice(a.start, a.end)).toEqual(a.bodies);
        }
      }
    } finally {
      await client.close();
      await lite.stop();
    }
  }, 60_000);
});
