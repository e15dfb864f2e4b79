/**
 * Found by a security review: in a data dir that already existed (lite makes a new one 0700),
 * lmdb created `data.mdb` and its lock file with its default mode, 0664 less the umask:
 * 0644 here, so every local user could read the records of unencrypted streams (and the
 * metadata of all of them) although the root token beside them was 0600. Now every file lite
 * creates in its data dir is the owner's only.
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Lite, liteClient, startLite } from "../helpers/lite.js";

const dir = mkdtempSync(join(tmpdir(), "svc-mode-"));
let lite: Lite | undefined;

afterAll(async () => {
  await lite?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("a data dir that is readable by others", () => {
  it("gets files only their owner can read or write", async () => {
    chmodSync(dir, 0o755);
    lite = await startLite({ dataDir: dir, keepDir: true });
    const c = liteClient(lite);
    expect(
      (
        await c.call("POST", "/v1/basins", {
          json: { basin: `mode-files-${process.pid}`, config: { create_stream_on_append: true } },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await c.call("POST", "/v1/streams/s/records", {
          basin: `mode-files-${process.pid}`,
          json: { records: [{ body: "secret" }] },
        })
      ).status,
    ).toBe(200);
    const files = readdirSync(dir);
    expect(files).toEqual(expect.arrayContaining(["data.mdb", "root-token"]));
    for (const f of files) expect([f, (statSync(join(dir, f)).mode & 0o777).toString(8)]).toEqual([f, "600"]);
  });
});
