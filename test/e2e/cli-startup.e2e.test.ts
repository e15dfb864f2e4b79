/**
 * Start-up discipline (docs/design/performance.md, "CLI start-up"): `svc --help` and `svc
 * --version` load commander and nothing heavy; `svc basin list` loads the client and node:http, and
 * never undici (≈350 ms in a one-shot process), protobufjs, zstd, chalk, ora or the server. Traced
 * with an ESM resolve hook over the built CLI, unbundled (SVC_UNBUNDLED=1: modules keep their
 * names); the bundle (dist/bundle/main.cjs, one CommonJS file compiled with its V8 code cache) is
 * checked to be what runs, with no package loaded from node_modules and no ES module of dist/ for
 * these commands.
 */
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { SVC_BIN } from "../helpers/cli.js";
import { ptyAvailable, runSvcInPty } from "../helpers/pty.js";
import { scratchDir } from "../helpers/scratch.js";

const REGISTER = resolve(import.meta.dirname, "../fixtures/startup/register.mjs");
const DIST = resolve(import.meta.dirname, "../../dist");

function loaded(args: string[], bundled = false): string[] {
  const dir = scratchDir("svc-trace-");
  const trace = join(dir, "trace.txt");
  spawnSync(process.execPath, ["--import", REGISTER, SVC_BIN, ...args], {
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      SVC_TRACE_FILE: trace,
      SVC_ACCOUNT_ENDPOINT: "http://127.0.0.1:1",
      SVC_BASIN_ENDPOINT: "http://127.0.0.1:1",
      SVC_RETRIES: "0",
      ...(bundled ? {} : { SVC_UNBUNDLED: "1" }),
    },
    stdio: "ignore",
  });
  return readFileSync(trace, "utf8").split("\n").filter(Boolean);
}

/** What a trace line loaded (`require:X from Y` lines name Y, the requiring file, too). */
const target = (line: string) => line.replace(/^require:/, "").split(" from ")[0]!;
const pkg = (urls: string[]) =>
  new Set(
    urls
      .map(target)
      .filter((u) => u.includes("/node_modules/"))
      .map((u) => u.split("/node_modules/")[1]!.split("/")[0]!),
  );
const ours = (urls: string[]) =>
  urls
    .map(target)
    .filter((u) => u.includes("/dist/"))
    .map((u) => u.split("/dist/")[1]!);

describe("svc start-up loads only what it uses", () => {
  it("--version alone loads no package and only the version module", () => {
    const urls = loaded(["--version"]);
    expect([...pkg(urls)]).toEqual([]);
    expect(ours(urls)).toEqual(["cli/version.js"]);
  });

  it.each([["--help"], ["--version", "--json"]])("%s loads commander only", (...flags) => {
    const urls = loaded(flags);
    expect([...pkg(urls)]).toEqual(["commander"]);
    const mine = ours(urls);
    expect(
      mine.some(
        (f) => f.startsWith("client/") || f.startsWith("transport/") || f.startsWith("wire/") || f.startsWith("lite/"),
      ),
    ).toBe(false);
    expect(mine.some((f) => f.startsWith("cli/commands/basin/"))).toBe(false);
  });

  it("basin list loads the client and node:http, and nothing for records, colours or the server", () => {
    const urls = loaded(["basin", "list"]);
    const p = pkg(urls);
    expect([...p]).toEqual(["commander"]);
    expect(ours(urls)).toContain("transport/node-http.js");
    const mine = ours(urls);
    expect(mine).toContain("cli/commands/basin/list.js");
    for (const f of mine) {
      expect(f.startsWith("lite/"), f).toBe(false);
      expect(f.startsWith("cli/commands/stream/"), f).toBe(false);
      expect(["wire/proto.js", "wire/compression.js", "wire/framing.js", "transport/session.js"]).not.toContain(f);
    }
  });

  it.each([["--help"], ["basin", "list"], ["read", "svc://b/s", "-n", "1"]])(
    "bundled, %s runs from dist/bundle and loads nothing from node_modules",
    (...args) => {
      const urls = loaded(args, true);
      // The bundle is what requires the built-ins; no ES module of dist/ is loaded.
      expect(urls.some((u) => u.startsWith("require:") && u.endsWith("/dist/bundle/main.cjs"))).toBe(true);
      expect(urls.filter((u) => !u.startsWith("require:") && u.includes("/dist/"))).toEqual([]);
      expect([...pkg(urls)]).toEqual([]);
      expect(existsSync(join(DIST, "bundle/main.cjs.cache")), "npm run build makes the code cache").toBe(true);
    },
  );

  it("svc lite goes straight to lite's entry in the unbundled tree, even when a bundle exists", () => {
    const urls = loaded(["lite", "--help"], true);
    expect(ours(urls)).toContain("lite/run.js");
    // Neither the CLI program nor the server's modules: the server thread loads those.
    expect(ours(urls)).not.toContain("cli/main.js");
    expect(ours(urls)).not.toContain("lite/server.js");
    expect(ours(urls).some((f) => f.startsWith("bundle/"))).toBe(false);
  });
});

describe("stdout opened only when used", () => {
  const run = (args: string[], stdout: "pipe" | number): { code: number | null; out: string } => {
    const r = spawnSync(process.execPath, [SVC_BIN, ...args], {
      env: { PATH: process.env.PATH, HOME: scratchDir("svc-help-") },
      stdio: ["ignore", stdout, "pipe"],
      encoding: "utf8",
    });
    return { code: r.status, out: r.stdout ?? "" };
  };

  it("help is the same text to a pipe, a file and (wrapped at its width) a terminal; a closed pipe is exit 0", async () => {
    const piped = run(["--help"], "pipe");
    expect(piped.code).toBe(0);
    expect(piped.out).toMatch(/^Usage: svc \[options\] \[command\]\n/);
    expect(piped.out).toContain(
      "\nCommand-line tool for the Stream Storage Service, with svc lite, a durable local\nserver\n",
    ); // 80 columns
    const file = join(scratchDir("svc-help-out-"), "help.txt");
    const fd = openSync(file, "w");
    try {
      expect(run(["--help"], fd).code).toBe(0);
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(file, "utf8")).toBe(piped.out);
    const head = spawnSync(
      "bash",
      [
        "-c",
        `${JSON.stringify(process.execPath)} ${JSON.stringify(SVC_BIN)} --help | head -1; echo "svc=\${PIPESTATUS[0]}"`,
      ],
      { encoding: "utf8", env: { PATH: process.env.PATH, HOME: scratchDir("svc-help-") } },
    );
    expect(head.stdout).toBe("Usage: svc [options] [command]\nsvc=0\n");
    if (!ptyAvailable) return;
    const tty = await runSvcInPty(["--help"], {}, { columns: 60 });
    expect(tty.code).toBe(0);
    const lines = tty.screen.filter((l) => l.length > 0);
    expect(lines[0]).toBe("Usage: svc [options] [command]");
    expect(lines).toContain("Command-line tool for the Stream Storage Service, with svc"); // its 60 columns
    expect(lines.join(" ").replace(/\s+/g, " ")).toBe(piped.out.trim().replace(/\s+/g, " "));
  });
});
