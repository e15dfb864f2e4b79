/**
 * Found by a CLI probe (data lost): `svc read -o FILE` and `svc tail -o FILE` truncated FILE
 * before the first request, so a read that failed (a stream that does not exist, a start
 * beyond the tail, a bad token) left it empty: whatever it held was gone. Now the file is
 * checked for writing at once but truncated only at the first record written or when the read
 * succeeds (an empty result then empties it, as asked).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { cliEnv, createStreams, type Lite, liteClient, startLite } from "../helpers/lite.js";

let lite: Lite;
const basin = `out-file-${process.pid}`;
const work = mkdtempSync(join(tmpdir(), "svc-outfile-"));
let env: Record<string, string>;

beforeAll(async () => {
  lite = await startLite();
  env = cliEnv(lite);
  const c = liteClient(lite);
  await createStreams(lite, basin, ["s", "empty"]);
  expect(
    (await c.call("POST", "/v1/streams/s/records", { basin, json: { records: [{ body: "a" }, { body: "b" }] } }))
      .status,
  ).toBe(200);
});

afterAll(async () => {
  await lite?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe("svc read/tail -o FILE", () => {
  it.each([
    ["a stream that does not exist", ["read", `svc://${basin}/nope`, "-s", "0", "-e"], {}, 4],
    ["a start beyond the tail", ["read", `svc://${basin}/s`, "-s", "99", "-e"], {}, 5],
    ["a bad token", ["read", `svc://${basin}/s`, "-s", "0", "-e"], { SVC_ACCESS_TOKEN: "nope" }, 3],
    ["tail of a stream that does not exist", ["tail", `svc://${basin}/nope`, "-n", "3"], {}, 4],
  ] as const)("leaves FILE as it was when the read fails: %s", async (_what, args, extra, code) => {
    const file = join(work, "precious.txt");
    writeFileSync(file, "precious\n");
    const r = await runSvc([...args, "-o", file], { env: { ...env, ...extra } });
    expect(r.code).toBe(code);
    expect(readFileSync(file, "utf8")).toBe("precious\n");
  });

  it("replaces FILE with what a successful read printed, also with nothing", async () => {
    const file = join(work, "out.txt");
    writeFileSync(file, "old\n");
    expect((await runSvc(["read", `svc://${basin}/s`, "-s", "0", "-e", "-o", file], { env })).code).toBe(0);
    expect(readFileSync(file, "utf8")).toBe("a\nb\n");
    writeFileSync(file, "old\n");
    expect((await runSvc(["read", `svc://${basin}/empty`, "-s", "0", "-e", "--clamp", "-o", file], { env })).code).toBe(
      0,
    );
    expect(readFileSync(file, "utf8")).toBe("");
  });

  it("still refuses at once a FILE it cannot write", async () => {
    const r = await runSvc(["read", `svc://${basin}/s`, "-s", "0", "-e", "-o", join(work, "no-such-dir", "x.txt")], {
      env,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("cannot open");
  });
});
