/**
 * The client package (`svc-client`, docs/library.md) as a user gets it: built and packed from
 * this checkout into a temp dir, and the two programs that check it from a consumer's project.
 */
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

export const ROOT = resolve(import.meta.dirname, "../..");
export const run = promisify(execFile);

export interface Packed {
  tarball: string;
  /** The tarball's entries (paths inside the package). */
  files: string[];
  unpackedSize: number;
}

/** Builds packages/client (from the dist/ of `npm run build`) and packs it into `dir`. */
export async function packClient(dir: string): Promise<Packed> {
  await run(process.execPath, [join(ROOT, "scripts/build-client.mjs")], { cwd: ROOT });
  // npm's own log goes to the temp dir too, so nothing is left behind in the user's ~/.npm.
  const packed = await run(
    "npm",
    [
      "pack",
      "./packages/client",
      "--json",
      "--pack-destination",
      dir,
      "--ignore-scripts",
      "--offline",
      `--logs-dir=${join(dir, "logs")}`,
    ],
    { cwd: ROOT, maxBuffer: 64 << 20 },
  );
  const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[]; unpackedSize: number }[];
  if (!info) throw new Error(`npm pack printed no package: ${packed.stdout}`);
  return { tarball: join(dir, info.filename), files: info.files.map((f) => f.path), unpackedSize: info.unpackedSize };
}

/**
 * Plain Node, through the public API only: a basin, a stream, appends through an appender,
 * the records read back, a missing stream told by its code, a refused deep import, and
 * `httpClient: "undici"` and `compression: "zstd"` without their packages (optional peers,
 * not installed): each a usage error naming the package, before anything is sent.
 */
export const USE = `
import { LIMITS, SvcClient, SvcError } from "svc-client";

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
    await import("svc-client/dist/index.js");
    out.deepImport = "allowed";
  } catch (e) {
    out.deepImport = e.code;
  }
  const viaUndici = new SvcClient({ accountEndpoint: endpoint, basinEndpoint: endpoint, accessToken: token, httpClient: "undici", retries: 0 });
  try {
    await viaUndici.basin(basin).stream("events").checkTail();
    out.undici = "worked without the package";
  } catch (e) {
    out.undici = { code: e.code, message: e.message };
  } finally {
    await viaUndici.close();
  }
  const viaZstd = new SvcClient({ accountEndpoint: endpoint, basinEndpoint: endpoint, accessToken: token, compression: "zstd", retries: 0 });
  try {
    const appender = await viaZstd.basin(basin).stream("events").appender();
    await appender.append({ records: [{ headers: [], body: new TextEncoder().encode("four") }] });
    out.zstd = "worked without the package";
  } catch (e) {
    out.zstd = { code: e.code, message: e.message };
  } finally {
    await viaZstd.close();
  }
} finally {
  await client.close();
}
process.stdout.write(JSON.stringify(out));
`;

/** A TypeScript consumer: what must type-check, and what must not (each @ts-expect-error). */
const TYPED = `
import { SvcClient, SvcError, type AppendInput, type ReadEvent, type StreamClient, type SvcClientOptions } from "svc-client";

const opts: SvcClientOptions = { accountEndpoint: "http://127.0.0.1:4243", basinEndpoint: "http://127.0.0.1:4243", timeoutMs: 1000, httpClient: "undici", compression: "zstd" };
const client = new SvcClient(opts);
const input: AppendInput = { records: [{ headers: [], body: new Uint8Array([1]) }], matchSeqNum: 0 };
const stream: StreamClient = client.basin("typed-basin").stream("s");

export async function appended(): Promise<number> {
  return (await stream.append(input)).end.seqNum;
}
export const kind = (e: ReadEvent): "batch" | "heartbeat" => e.type;
export const missing = (e: unknown): boolean => e instanceof SvcError && e.code === "stream_not_found";

// @ts-expect-error the options are typed: an unknown one is refused
new SvcClient({ ...opts, noSuchOption: true });
// @ts-expect-error the client's internals are not options
new SvcClient({ ...opts, transport: {} });
// @ts-expect-error nor is the CLI's proof of the local lite
new SvcClient({ ...opts, liteProof: { tokenFile: "f", rootToken: "t" } });
// @ts-expect-error the client tree makes StreamClients: the package exports no such value
export const made = new StreamClient();
// @ts-expect-error a read batch's encoded chunks are lite's, not public
export const encoded = (e: ReadEvent) => e.type === "batch" && e.encoded;
// @ts-expect-error only the front door is public
export const deep = import("svc-client/dist/index.js");
`;

/** tsconfig.json for TYPED: strict, and the package's own declarations checked too. */
const TYPED_TSCONFIG = JSON.stringify({
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
});

/** What USE prints against a working lite. */
export const USE_EXPECTED = {
  acks: [1, 2, 3],
  bodies: ["one", "two", "three"],
  missing: { svcError: true, code: "stream_not_found", status: 404 },
  maxBatchRecords: 1000,
  deepImport: "ERR_PACKAGE_PATH_NOT_EXPORTED",
  undici: {
    code: "usage",
    message: 'httpClient: "undici" needs the undici package, which is not installed: npm install undici',
  },
  zstd: {
    code: "usage",
    message:
      "zstd compression needs the @mongodb-js/zstd package, which is not installed: npm install @mongodb-js/zstd",
  },
};

/** TYPED type-checked by tsc in `project` (where svc-client and @types/node resolve): its exit code and output. */
export async function typeCheck(project: string): Promise<{ code: number; out: string }> {
  writeFileSync(join(project, "typed.ts"), TYPED);
  writeFileSync(join(project, "tsconfig.json"), TYPED_TSCONFIG);
  const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
  return run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: project }).then(
    (r) => ({ code: 0, out: r.stdout }),
    (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
  );
}
