/**
 * svc as a library (docs/library.md), as a user gets it: the package is packed with `npm pack`,
 * unpacked into a project of its own under a temp dir (its dependencies linked from this repo's
 * node_modules: nothing is downloaded), and then:
 * - plain Node imports `svc`, creates a basin and a stream on a real lite, appends through an
 *   appender, reads the records back, and tells a missing stream by its SvcError code; a deep
 *   import of a module behind the front door is refused;
 * - tsc type-checks a consumer against the emitted declarations: the options are typed (an
 *   unknown one is an error) and deep imports do not resolve.
 * The temp dir, tarball included, is removed afterwards.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lite, startLite, uniqueBasin } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";

const ROOT = resolve(import.meta.dirname, "../..");
const run = promisify(execFile);

/** The unpacked package's project: `node_modules/svc` plus a link to each dependency it declares. */
async function consumerProject(): Promise<string> {
  const dir = scratchDir("svc-library-");
  // npm's own log goes to the temp dir too, so nothing is left behind in the user's ~/.npm.
  const packed = await run(
    "npm",
    ["pack", "--json", "--pack-destination", dir, "--ignore-scripts", "--offline", `--logs-dir=${join(dir, "logs")}`],
    { cwd: ROOT, maxBuffer: 64 << 20 },
  );
  const tarball = join(dir, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
  const project = join(dir, "project");
  const pkgDir = join(project, "node_modules/svc");
  mkdirSync(pkgDir, { recursive: true });
  await run("tar", ["-xzf", tarball, "-C", pkgDir, "--strip-components=1"]);
  const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  // Only what the package declares (and, for the type check, Node's types) can be resolved:
  // the project is outside the repo, so nothing falls back to the repo's node_modules.
  for (const dep of [...Object.keys(manifest.dependencies), "@types/node"]) {
    const link = join(project, "node_modules", dep);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(realpathSync(join(ROOT, "node_modules", dep)), link);
  }
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  return project;
}

const USE = `
import { LIMITS, SvcClient, SvcError } from "svc";

const [endpoint, token, basin] = process.argv.slice(2);
const client = new SvcClient({ accountEndpoint: endpoint, basinEndpoint: endpoint, accessToken: token });
const out = {};
try {
  await client.basins.create(basin);
  const b = client.basin(basin);
  await b.streams.create("events");
  const stream = b.stream("events");
  const appender = await stream.appender();
  const tickets = [];
  for (const body of ["one", "two", "three"])
    tickets.push(await appender.submit({ records: [{ headers: [], body: new TextEncoder().encode(body) }] }));
  out.acks = await Promise.all(tickets.map(async (t) => (await t.ack()).end.seqNum));
  await appender.close();
  out.bodies = [];
  for await (const ev of stream.read({ seqNum: 0 }, { count: 3 }))
    if (ev.type === "batch") out.bodies.push(...ev.records.map((r) => new TextDecoder().decode(r.body)));
  try {
    await b.stream("missing").checkTail();
  } catch (e) {
    out.missing = { svcError: e instanceof SvcError, code: e.code, status: e.status };
  }
  out.maxBatchRecords = LIMITS.maxBatchRecords;
  try {
    await import("svc/dist/client/client.js");
    out.deepImport = "allowed";
  } catch (e) {
    out.deepImport = e.code;
  }
} finally {
  await client.close();
}
process.stdout.write(JSON.stringify(out));
`;

const TYPED = `
import { SvcClient, SvcError, type AppendInput, type ReadEvent, type SvcClientOptions } from "svc";

const opts: SvcClientOptions = { accountEndpoint: "http://127.0.0.1:4243", basinEndpoint: "http://127.0.0.1:4243", timeoutMs: 1000 };
const client = new SvcClient(opts);
const input: AppendInput = { records: [{ headers: [], body: new Uint8Array([1]) }], matchSeqNum: 0 };

export async function appended(): Promise<number> {
  return (await client.basin("typed-basin").stream("s").append(input)).end.seqNum;
}
export const kind = (e: ReadEvent): "batch" | "heartbeat" => e.type;
export const missing = (e: unknown): boolean => e instanceof SvcError && e.code === "stream_not_found";

// @ts-expect-error the options are typed: an unknown one is refused
new SvcClient({ ...opts, noSuchOption: true });
// @ts-expect-error only the front door is public
export const deep = import("svc/dist/client/client.js");
`;

let lite: Lite;
let project: string;
beforeAll(async () => {
  [lite, project] = await Promise.all([startLite(), consumerProject()]);
}, 120_000);
afterAll(async () => {
  expect(await lite.stop()).toBe(0);
});

describe("svc as a library, from the packed package", () => {
  it("plain Node imports it and talks to lite through the public API only", async () => {
    writeFileSync(join(project, "use.mjs"), USE);
    const basin = uniqueBasin("lib");
    const { stdout } = await run(process.execPath, ["use.mjs", lite.url, lite.token, basin], { cwd: project });
    expect(JSON.parse(stdout)).toEqual({
      acks: [1, 2, 3],
      bodies: ["one", "two", "three"],
      missing: { svcError: true, code: "stream_not_found", status: 404 },
      maxBatchRecords: 1000,
      deepImport: "ERR_PACKAGE_PATH_NOT_EXPORTED",
    });
  }, 60_000);

  it("tsc checks a consumer against the emitted declarations", async () => {
    writeFileSync(join(project, "typed.ts"), TYPED);
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          lib: ["ES2023"],
          types: ["node"],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
        },
        files: ["typed.ts"],
      }),
    );
    const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
    const result = await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: project }).then(
      (r) => ({ code: 0, out: r.stdout }),
      (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
    );
    expect(result.out).toBe("");
    expect(result.code).toBe(0);
  }, 60_000);
});
