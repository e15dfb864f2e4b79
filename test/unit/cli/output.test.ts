import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { colorWanted, Output, spinnerWanted } from "../../../src/cli/output.js";

const tty = Object.assign(new PassThrough(), { isTTY: true });
const pipe = new PassThrough();

describe("cli > output", () => {
  it("colours only on a TTY, never under CI, NO_COLOR, --no-color, --quiet or --json", () => {
    expect(colorWanted({ stderr: tty, env: {} })).toBe(true);
    expect(colorWanted({ stderr: pipe, env: {} })).toBe(false);
    expect(colorWanted({ stderr: tty, env: { CI: "true" } })).toBe(false);
    expect(colorWanted({ stderr: tty, env: { NO_COLOR: "" } })).toBe(false);
    expect(colorWanted({ stderr: tty, env: {}, color: false })).toBe(false);
    expect(colorWanted({ stderr: tty, env: {}, quiet: true })).toBe(false);
    expect(colorWanted({ stderr: tty, env: {}, json: true })).toBe(false);
  });

  it("colours data (charts) only on a terminal stdout, with colours allowed", async () => {
    expect(await new Output({ stdout: tty, stderr: pipe, env: {} }).dataChalk()).toBeDefined();
    expect(await new Output({ stdout: pipe, stderr: tty, env: {} }).dataChalk()).toBeUndefined();
    expect(await new Output({ stdout: pipe, stderr: pipe, env: { FORCE_COLOR: "1" } }).dataChalk()).toBeUndefined();
    expect(await new Output({ stdout: tty, stderr: tty, env: { NO_COLOR: "" } }).dataChalk()).toBeUndefined();
    expect(await new Output({ stdout: tty, stderr: tty, env: {}, color: false }).dataChalk()).toBeUndefined();
    expect(await new Output({ stdout: tty, stderr: pipe, env: {}, quiet: true }).dataChalk()).toBeDefined();
    expect(
      new Output({ stdout: Object.assign(new PassThrough(), { isTTY: true, columns: 123 }), env: {} }).dataColumns,
    ).toBe(123);
    expect(new Output({ stdout: pipe, env: {} }).dataOnTerminal).toBe(false);
  });

  it("honours FORCE_COLOR both ways", () => {
    expect(colorWanted({ stderr: pipe, env: { FORCE_COLOR: "1" } })).toBe(true);
    expect(colorWanted({ stderr: tty, env: { FORCE_COLOR: "0" } })).toBe(false);
    expect(colorWanted({ stderr: pipe, env: { FORCE_COLOR: "1" }, color: false })).toBe(false);
  });

  it("spinners only on a TTY, never under CI, --quiet or --json", () => {
    expect(spinnerWanted({ stderr: tty, env: {} })).toBe(true);
    expect(spinnerWanted({ stderr: pipe, env: {} })).toBe(false);
    expect(spinnerWanted({ stderr: tty, env: { CI: "1" } })).toBe(false);
    expect(spinnerWanted({ stderr: tty, env: {}, quiet: true })).toBe(false);
    expect(spinnerWanted({ stderr: tty, env: {}, json: true })).toBe(false);
  });

  it("puts data on stdout and status on stderr; --quiet silences status but not warnings", async () => {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const out = await new Output({ stdout, stderr, env: {} }).init();
    await out.line("data");
    await out.jsonLine({ a: 1 });
    out.success("done");
    out.info("note");
    out.warn("careful");
    expect(stdout.read().toString()).toBe('data\n{"a":1}\n');
    expect(stderr.read().toString()).toBe("✓ done\nnote\n! careful\n");
    const quietErr = new PassThrough();
    const quiet = await new Output({ stdout, stderr: quietErr, env: {}, quiet: true }).init();
    quiet.success("done");
    quiet.info("note");
    quiet.warn("careful");
    expect(quietErr.read().toString()).toBe("! careful\n");
  });

  it("runs work without a spinner when none is wanted", async () => {
    const out = new Output({ stderr: pipe, env: {} });
    expect(await out.spin("waiting", async () => 42)).toBe(42);
  });
});
