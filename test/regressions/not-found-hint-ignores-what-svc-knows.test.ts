/**
 * Bug (user trial): a stream or basin that does not exist got a generic hint ("list streams
 * with `svc stream list <basin>`") though svc knows which one was named and what would make it.
 *
 * Expected: the hint names the command that creates it, and for a stream how to let the basin
 * create streams when first written (append) or read (read, check-tail).
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

describe("not-found hints", () => {
  it("a stream appended to: create it, or --create-stream-on-append", async () => {
    const uri = `svc://${d.basin}/nope`;
    const r = await d.svc(["append", uri, "x"]);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(
      `hint: create it with \`svc stream create ${uri}\`, or let the basin create streams on append: \`svc basin reconfigure ${d.basin} --create-stream-on-append\``,
    );
  });

  it("a stream read: --create-stream-on-read", async () => {
    const r = await d.svc(["read", `svc://${d.basin}/nope`, "-s", "0", "-e"]);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`\`svc basin reconfigure ${d.basin} --create-stream-on-read\``);
  });

  it("a basin: create it", async () => {
    const r = await d.svc(["stream", "list", "no-such-basin-1"]);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("hint: create it with `svc basin create no-such-basin-1`");
  });
});
