/**
 * Bug (user trial): `svc basin list -l` and `svc stream list -l` printed columns with no header,
 * and a stream name with a space printed as is, so `svc://b/with space  2026-…` could not be
 * told from a name and a column. Now `-l` prints a header row, fixed-width columns first and
 * the name last (rows still stream while paginating), and a name that is not one word is
 * quoted as a JSON string.
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

describe("list -l", () => {
  it("stream list -l: a header, and a name with a space quoted", async () => {
    const spaced = `svc://${d.basin}/with space`;
    expect((await d.svc(["stream", "create", spaced])).code).toBe(0);
    expect((await d.svc(["stream", "create", `svc://${d.basin}/plain`])).code).toBe(0);
    const r = await d.svc(["stream", "list", d.basin, "-l"]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^CREATED\s+STATE\s+URI$/);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\s+active\\s+svc://${d.basin}/plain$`)),
      expect.stringMatching(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\s+active\\s+"svc://${d.basin}/with space"$`)),
    ]);
    // Plain lines and JSON are data for scripts: unchanged.
    expect((await d.svc(["stream", "list", d.basin])).stdout).toContain(`${spaced}\n`);
  });

  it("basin list -l: a header row", async () => {
    const r = await d.svc(["basin", "list", "-l", "--prefix", d.basin]);
    expect(r.stdout.trimEnd().split("\n")).toEqual([
      expect.stringMatching(/^CREATED\s+STATE\s+NAME$/),
      expect.stringMatching(new RegExp(`^\\d{4}-\\S+\\s+active\\s+${d.basin}$`)),
    ]);
  });
});
