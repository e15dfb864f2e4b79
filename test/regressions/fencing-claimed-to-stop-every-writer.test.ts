/**
 * Bug: the README said a fencing token makes every other writer fail, but a writer that passes
 * no `-F` succeeds on a fenced stream (fencing is opt-in per append, as in S2), and nothing told
 * that writer the stream was fenced.
 *
 * Now the README says what fencing guarantees (writers that present a token), and an append
 * without a token to a fenced stream, at a terminal (or with -v), still succeeds but says on
 * stderr that the stream is fenced and its token was not checked; an unfenced stream gets no
 * such note, and the check writes nothing to the stream. Piped, svc does not ask (the check
 * counts as an append operation).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";
import { ptyAvailable, runSvcInPty } from "../helpers/pty.js";

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
}, 30_000);
afterAll(async () => {
  await d?.stop();
});

it("the README does not claim that a fence stops writers that pass no token", () => {
  const readme = readFileSync(resolve(import.meta.dirname, "../../README.md"), "utf8");
  expect(readme).not.toMatch(/fencing token makes every other writer fail/i);
  expect(readme).toMatch(/opt-in\s+per append/);
});

it("an append without -F to a fenced stream succeeds and notes the fence on stderr", async () => {
  const uri = await d.newStream("fenced");
  expect((await d.svc(["append", uri, "before"])).code).toBe(0);
  const plain = await d.svc(["append", uri, "unfenced"]);
  expect(plain.code, plain.stderr).toBe(0);
  expect(plain.stderr).not.toContain("is fenced");
  expect((await d.svc(["fence", uri, "writer-1"])).code).toBe(0);
  const note = `${uri} is fenced (token "writer-1"), and this append carried no fencing token`;
  const r = await d.svc(["append", uri, "no-token", "-v"]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toContain(note);
  const piped = await d.svc(["append", uri, "piped"]);
  expect(piped.code, piped.stderr).toBe(0);
  expect(piped.stderr).not.toContain("is fenced");
  if (ptyAvailable) {
    const t = await runSvcInPty(["append", uri, "at-a-terminal"], d.env);
    expect(t.code, t.raw).toBe(0);
    expect(t.screen.join("").replaceAll(/\s+/g, " ")).toContain(note);
  }
  const withToken = await d.svc(["append", uri, "with-token", "-F", "writer-1"]);
  expect(withToken.code, withToken.stderr).toBe(0);
  expect(withToken.stderr).not.toContain("is fenced");
  const wrong = await d.svc(["append", uri, "wrong", "-F", "writer-2"]);
  expect(wrong.code).toBe(5);
  // The check wrote nothing: the data records are exactly those appended.
  const read = await d.svc(["read", uri, "-s", "0", "-e"]);
  expect(read.stdout).toBe(`before\nunfenced\nno-token\npiped\n${ptyAvailable ? "at-a-terminal\n" : ""}with-token\n`);
}, 60_000);
