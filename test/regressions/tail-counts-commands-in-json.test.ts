/**
 * Bug (user trial): `svc tail -n 3` counted command records (fence, trim) in JSON but not in
 * text: the same command showed different records depending on the format.
 *
 * Now N counts data records whatever the format: text shows the last 3 data records (commands
 * among them on stderr), JSON the same 3 with the command records among them inline.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";

let d: DataEnv;
let uri: string;
beforeAll(async () => {
  d = await dataEnv();
  uri = await d.newStream("tail");
  expect((await d.svc(["append", uri, "-q"], { stdin: "r0\nr1\nr2\n" })).code).toBe(0);
  expect((await d.svc(["fence", uri, "w1"])).code).toBe(0);
  expect((await d.svc(["append", uri, "-q", "-F", "w1"], { stdin: "r3\nr4\n" })).code).toBe(0);
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

describe("svc tail -n 3 on a stream with a fence among its last records", () => {
  it("shows the same three data records in text and in JSON", async () => {
    const text = await d.svc(["tail", uri, "-n", "3"]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toBe("r2\nr3\nr4\n");
    const json = await d.svc(["tail", uri, "-n", "3", "--json"]);
    const lines = json.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { seq_num: number; body: string; headers: string[][] });
    expect(lines.filter((l) => l.headers.length === 0).map((l) => l.body)).toEqual(["r2", "r3", "r4"]);
    expect(lines.map((l) => l.seq_num)).toEqual([2, 3, 4, 5]);
  });
});
