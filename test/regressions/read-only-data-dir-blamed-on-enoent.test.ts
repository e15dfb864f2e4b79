/**
 * Bug (found by the load suite's read-only data dir case): `svc lite --data-dir
 * <dir>` under a read-only parent failed with "ENOENT: no such file or directory, mkdir" (Node
 * reports a recursive mkdir under a read-only parent as ENOENT), pointing at the wrong cause.
 * Now every read-only case (a new dir, a nested new dir, an existing dir holding data) fails at
 * start with "cannot use the data dir …: … is on a read-only file system", exit 1, no stack.
 * Needs root to mount a read-only tmpfs; skipped otherwise.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { SvcClient } from "../../src/client/client.js";
import { spawnLite, startLite } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";

describe("a read-only data dir", () => {
  it.skipIf(process.getuid?.() !== 0)(
    "gives a clear error at start, empty or holding data",
    async () => {
      const dir = scratchDir("svc-ro-");
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=64m", "tmpfs", dir]);
      try {
        // Holding data: a server wrote to it and stopped, then the file system became read-only.
        const l = await startLite({ dataDir: `${dir}/data` });
        const c = new SvcClient({ accountEndpoint: l.url, basinEndpoint: l.url, accessToken: l.token });
        await c.basins.create("read-only-basin");
        await c.close();
        await l.stop();
        execFileSync("mount", ["-o", "remount,ro", dir]);
        for (const d of [`${dir}/data`, `${dir}/fresh`, `${dir}/a/b`, dir]) {
          const err = await spawnLite(["--port", "0", "--data-dir", d]).then(
            (s) => {
              s.child.kill("SIGKILL");
              return "started";
            },
            (e: Error) => e.message,
          );
          expect(err, d).toMatch(/exited \(1\)/);
          expect(err, d).toMatch(/read-only file system/);
          expect(err, d).not.toMatch(/ENOENT|\n\s+at /);
        }
      } finally {
        execFileSync("umount", [dir]);
      }
    },
    60_000,
  );
});
