/**
 * Bug (user trial): `s2://basin/stream` URIs were refused ("must be `svc://`"), even with
 * `--dialect s2`, while S2's command spellings (`create-basin`, `list-streams`…) work as
 * aliases: a script written for S2's CLI failed on its first URI.
 *
 * Expected: `s2://` is accepted wherever `svc://` is (streams, basins, prefixes, tail
 * patterns), with either dialect; and `svc://` works with `--dialect s2` too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

describe("s2:// URIs", () => {
  it.each([[[]], [["--dialect", "s2"]]])("work like svc:// (dialect flags %j)", async (dialect) => {
    const name = `s2uri-${dialect.length}`;
    const s2 = `s2://${d.basin}/${name}`;
    const create = await d.svc([...dialect, "create-stream", s2]);
    expect(create.code, create.stderr).toBe(0);
    const put = await d.svc([...dialect, "append", s2], { stdin: "a\nb\n" });
    expect(put.code, put.stderr).toBe(0);
    const read = await d.svc([...dialect, "read", s2, "-s", "0", "-e"]);
    expect([read.code, read.stdout]).toEqual([0, "a\nb\n"]);
    const svc = await d.svc([...dialect, "read", `svc://${d.basin}/${name}`, "-s", "0", "-e"]);
    expect(svc.stdout).toBe("a\nb\n");
    const list = await d.svc([...dialect, "list-streams", `s2://${d.basin}/s2uri`]);
    expect(list.stdout).toContain(name);
    const basin = await d.svc([...dialect, "basin", "get", `s2://${d.basin}`]);
    expect(basin.code, basin.stderr).toBe(0);
    const tail = await d.svc([...dialect, "tail", `s2://${d.basin}/s2uri-*`, "-n", "1", "--no-prefix"]);
    expect(tail.code, tail.stderr).toBe(0);
    expect(tail.stdout).toContain("b\n");
  });

  it("other schemes are still refused, naming both", async () => {
    const r = await d.svc(["read", "http://b/s"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("must be `svc://` (or S2's `s2://`)");
  });
});
