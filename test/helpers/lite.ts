/**
 * Test harness for svc lite.
 *
 * startLite() runs the BUILT server as a child process (`node bin/svc.js lite --port 0
 * --data-dir <tmp>`) in its own process group and reads the three `export` lines from its
 * stdout; kill9() SIGKILLs the group, restart() starts again on the same data dir. With
 * `inProcess: true` it runs openLite() from src in this process instead (fast tests; on lmdb
 * or PostgreSQL), whose background sweep the test may run (`sweep`) on a clock it moves.
 *
 * liteClient() is a tiny HTTP client over undici (HTTP/1.1) or node:http2 (h2c, prior
 * knowledge), so every e2e suite can run over both protocols against the same port.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { type ClientHttp2Session, connect } from "node:http2";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { request as undiciRequest } from "undici";
import { freshDatabase, PG_PASSWORD } from "./postgres.js";

const ROOT = resolve(import.meta.dirname, "../..");
export const SVC_BIN = join(ROOT, "bin", "svc.js");

export interface LiteOptions {
  /** Reuse a data dir (default: a fresh temp dir, removed by stop() unless keepDir). */
  dataDir?: string;
  inMemory?: boolean;
  args?: string[];
  env?: Record<string, string>;
  inProcess?: boolean;
  /** In process: the clock by which the sweep deems trims due (the test moves it). */
  clock?: () => number;
  keepDir?: boolean;
  /** Run on this PostgreSQL database (URL without password; PGPASSWORD is passed) instead of lmdb. */
  postgres?: string;
}

export interface Lite {
  url: string;
  port: number;
  token: string;
  dataDir: string | undefined;
  pid: number | undefined;
  /** stderr captured so far (child process only). */
  stderr(): string;
  /** SIGTERM and wait; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL the process group and wait for it to die. */
  kill9(): Promise<void>;
  /** Start again on the same data dir (after stop or kill9); url/port/pid change. */
  restart(): Promise<void>;
  /** In process only: runs a whole background sweep now, resolved when it ends. */
  sweep?: () => Promise<void>;
}

interface Spawned {
  child: ChildProcess;
  url: string;
  port: number;
  /**
   * The root token it printed; "" when it printed none (a node on PostgreSQL that did not make
   * the shared root token knows its hash only: startLite gives it its sibling's).
   */
  token: string;
  stderr: () => string;
  exited: Promise<number | null>;
}

export function spawnLite(args: string[], env: Record<string, string> = {}): Promise<Spawned> {
  // Not the machine's NODE_EXTRA_CA_CERTS: lite connects to nothing past this machine, and a
  // large bundle costs every start ~70 ms of CPU (test/helpers/cli.ts).
  const { NODE_EXTRA_CA_CERTS: _bundle, ...inherited } = process.env;
  const child = spawn(process.execPath, [SVC_BIN, "lite", ...args], {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...inherited, FORCE_COLOR: "0", ...env },
  });
  let out = "";
  let err = "";
  const exited = new Promise<number | null>((res) => child.once("exit", (code) => res(code)));
  child.stderr!.on("data", (c: Buffer) => {
    err += c.toString();
  });
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`svc lite did not start in 15 s; stderr:\n${err}`)), 15_000);
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const url = /^export SVC_ACCOUNT_ENDPOINT=(\S+)$/m.exec(out)?.[1];
      // The export lines come in one write: the token's, if any, with the others.
      const token = /^export SVC_ACCESS_TOKEN=(\S+)$/m.exec(out)?.[1] ?? "";
      if (url && /^export SVC_BASIN_ENDPOINT=\S+\n/m.test(out)) {
        clearTimeout(timer);
        const storage = args[args.indexOf("--storage") + 1];
        if (token !== "" && args.includes("--storage") && storage !== undefined) rootTokenOf(storage).set(token);
        resolvePromise({ child, url, port: Number(new URL(url).port), token, stderr: () => err, exited });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`svc lite exited (${code}) before listening; stderr:\n${err}`));
    });
  });
}

export async function startLite(opts: LiteOptions = {}): Promise<Lite> {
  // LITE_E2E_STORAGE=memory runs the protocol suites against the memory storage instead.
  if (
    opts.inMemory === undefined &&
    opts.dataDir === undefined &&
    !opts.keepDir &&
    process.env.LITE_E2E_STORAGE === "memory"
  ) {
    opts = { ...opts, inMemory: true };
  }
  // LITE_E2E_STORAGE=postgres: each server gets a fresh database on the run's PostgreSQL.
  let dropDb: (() => Promise<void>) | undefined;
  if (
    opts.postgres === undefined &&
    opts.inMemory === undefined &&
    opts.dataDir === undefined &&
    !opts.keepDir &&
    !opts.inProcess &&
    process.env.LITE_E2E_STORAGE === "postgres"
  ) {
    const db = await freshDatabase();
    opts = { ...opts, postgres: db.url };
    dropDb = db.drop;
  }
  if (opts.postgres !== undefined && opts.inProcess) {
    const args = ["--storage", opts.postgres, "--port", "0", ...(opts.args ?? [])];
    return startInProcess(args, undefined, () => {}, opts, { PGPASSWORD: PG_PASSWORD });
  }
  if (opts.postgres !== undefined) return startOnPostgres(opts, opts.postgres, dropDb);
  const ownDir = !opts.inMemory && opts.dataDir === undefined;
  const dataDir = opts.inMemory ? undefined : (opts.dataDir ?? mkdtempSync(join(tmpdir(), "svc-lite-")));
  const args = [...(dataDir ? ["--data-dir", dataDir] : ["--in-memory"]), "--port", "0", ...(opts.args ?? [])];
  const cleanup = (): void => {
    if (ownDir && !opts.keepDir && dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  if (opts.inProcess) return startInProcess(args, dataDir, cleanup, opts);

  let s = await spawnLite(args, opts.env);
  const lite: Lite = {
    url: s.url,
    port: s.port,
    token: s.token,
    dataDir,
    pid: s.child.pid,
    stderr: () => s.stderr(),
    async stop() {
      if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill("SIGTERM");
      const code = await s.exited;
      cleanup();
      return code;
    },
    async kill9() {
      try {
        process.kill(-s.child.pid!, "SIGKILL");
      } catch {
        /* already gone */
      }
      await s.exited;
    },
    async restart() {
      s = await spawnLite(args, opts.env);
      Object.assign(lite, { url: s.url, port: s.port, token: s.token, pid: s.child.pid });
    },
  };
  return lite;
}

async function startOnPostgres(
  opts: LiteOptions,
  url: string,
  dropDb: (() => Promise<void>) | undefined,
): Promise<Lite> {
  const args = ["--storage", url, "--port", "0", ...(opts.args ?? [])];
  const env = { PGPASSWORD: PG_PASSWORD, ...(opts.env ?? {}) };
  let s = await spawnOnPostgres(url, args, env);
  const lite: Lite = {
    url: s.url,
    port: s.port,
    token: s.token,
    dataDir: undefined,
    pid: s.child.pid,
    stderr: () => s.stderr(),
    async stop() {
      if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill("SIGTERM");
      const code = await s.exited;
      await dropDb?.();
      return code;
    },
    async kill9() {
      try {
        process.kill(-s.child.pid!, "SIGKILL");
      } catch {
        /* already gone */
      }
      await s.exited;
    },
    async restart() {
      s = await spawnOnPostgres(url, args, env);
      Object.assign(lite, { url: s.url, port: s.port, token: s.token, pid: s.child.pid });
    },
  };
  return lite;
}

/**
 * The shared root token of each database, as the first of its nodes started here printed it:
 * the database keeps only its hash, so the nodes started after it print none and get it from
 * here (nodes started together wait for the one that made it).
 */
interface SharedToken {
  token: Promise<string>;
  set: (t: string) => void;
}
const rootTokens = new Map<string, SharedToken>();

function rootTokenOf(url: string): SharedToken {
  // Of a host list (a primary and its standbys), the first host names the database.
  const u = new URL(url.replace(/^(postgres(?:ql)?:\/\/[^/?#]*?)(,[^/?#]*)(?=[/?#])/i, "$1"));
  const key = `${u.hostname}${u.pathname}`; // not the port: a node may reach it through a proxy
  let entry = rootTokens.get(key);
  if (entry === undefined) {
    let set: (t: string) => void = () => undefined;
    const token = new Promise<string>((r) => (set = r));
    rootTokens.set(key, (entry = { token, set }));
  }
  return entry;
}

async function spawnOnPostgres(url: string, args: string[], env: Record<string, string>): Promise<Spawned> {
  const s = await spawnLite(args, env);
  if (s.token !== "") return s;
  let timer: NodeJS.Timeout | undefined;
  const none = new Promise<string>((r) => (timer = setTimeout(() => r(""), 10_000)));
  const token = await Promise.race([rootTokenOf(url).token, none]).finally(() => clearTimeout(timer));
  return { ...s, token };
}

async function startInProcess(
  args: string[],
  dataDir: string | undefined,
  cleanup: () => void,
  opts: LiteOptions,
  env: Record<string, string> = {},
): Promise<Lite> {
  const { openLite } = await import("../../src/lite/main.js");
  const { parseLiteArgs } = await import("../../src/lite/options.js");
  const options = parseLiteArgs(args, { ...process.env, ...env, ...(opts.env ?? {}) });
  let running = await openLite(options, opts.clock);
  const lite: Lite = {
    url: running.url,
    port: running.port,
    token: running.rootToken ?? "",
    dataDir,
    pid: process.pid,
    stderr: () => "",
    async stop() {
      await running.close();
      cleanup();
      return 0;
    },
    async kill9() {
      throw new Error("kill9 needs a child process");
    },
    async restart() {
      running = await openLite(options, opts.clock);
      Object.assign(lite, { url: running.url, port: running.port, token: running.rootToken ?? "" });
    },
    sweep: () => running.sweep(),
  };
  return lite;
}

// ---------------------------------------------------------------------------------------
// HTTP client over HTTP/1.1 (undici) or h2c (node:http2).

export type Protocol = "h1" | "h2";

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The body parsed as JSON (throws when it is not JSON). */
  json(): any;
  text(): string;
}

export interface Call {
  /** Sent as `svc-basin`. */
  basin?: string;
  headers?: Record<string, string>;
  /** JSON body (sets Content-Type: application/json unless headers say otherwise). */
  json?: unknown;
  body?: Uint8Array | string;
  query?: Record<string, string | number | boolean>;
}

export interface LiteClient {
  protocol: Protocol;
  call(method: string, path: string, opts?: Call): Promise<Reply>;
  close(): Promise<void>;
}

function reply(status: number, headers: Record<string, string>, body: Buffer): Reply {
  return { status, headers, body, json: () => JSON.parse(body.toString("utf8")), text: () => body.toString("utf8") };
}

function prepare(
  lite: Pick<Lite, "url" | "token">,
  path: string,
  opts: Call,
): { url: string; headers: Record<string, string>; body: Uint8Array | string | undefined } {
  const headers: Record<string, string> = {
    authorization: `Bearer ${lite.token}`,
    ...(opts.basin ? { "svc-basin": opts.basin } : {}),
  };
  let body = opts.body;
  if (opts.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(opts.json);
  }
  Object.assign(headers, opts.headers ?? {});
  const qs = opts.query
    ? `?${new URLSearchParams(Object.entries(opts.query).map(([k, v]): [string, string] => [k, String(v)]))}`
    : "";
  return { url: `${lite.url}${path}${qs}`, headers, body };
}

export function liteClient(lite: Pick<Lite, "url" | "token">, protocol: Protocol = "h1"): LiteClient {
  if (protocol === "h1") {
    return {
      protocol,
      async call(method, path, opts = {}) {
        const p = prepare(lite, path, opts);
        const res = await undiciRequest(p.url, {
          method: method as "GET",
          headers: p.headers,
          body: p.body,
          headersTimeout: 90_000,
          bodyTimeout: 90_000,
        });
        const body = Buffer.from(await res.body.arrayBuffer());
        return reply(res.statusCode, res.headers as Record<string, string>, body);
      },
      async close() {},
    };
  }
  let session: ClientHttp2Session | undefined;
  const getSession = (): ClientHttp2Session => {
    if (!session || session.closed || session.destroyed) {
      session = connect(lite.url);
      session.on("error", () => undefined);
    }
    return session;
  };
  return {
    protocol,
    call(method, path, opts = {}) {
      const p = prepare(lite, path, opts);
      const u = new URL(p.url);
      return new Promise((resolvePromise, reject) => {
        const stream = getSession().request({ ":method": method, ":path": `${u.pathname}${u.search}`, ...p.headers });
        const chunks: Buffer[] = [];
        let status = 0;
        let headers: Record<string, string> = {};
        stream.on("response", (h) => {
          status = Number(h[":status"]);
          headers = Object.fromEntries(
            Object.entries(h)
              .filter(([k]) => !k.startsWith(":"))
              .map(([k, v]) => [k, String(v)]),
          );
        });
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("end", () => resolvePromise(reply(status, headers, Buffer.concat(chunks))));
        stream.on("error", reject);
        stream.end(p.body === undefined ? undefined : Buffer.from(p.body));
      });
    },
    async close() {
      await new Promise<void>((r) => (session && !session.closed ? session.close(() => r()) : r()));
    },
  };
}

/** The environment that points svc (the CLI) at `lite` with its root token. */
export function cliEnv(lite: Pick<Lite, "url" | "token">): Record<string, string> {
  return { SVC_ACCOUNT_ENDPOINT: lite.url, SVC_BASIN_ENDPOINT: lite.url, SVC_ACCESS_TOKEN: lite.token };
}

/** A test's fixture: creates `basin` (with `config`) and its `streams` (names, or name → config) through `lite`. */
export async function createStreams(
  lite: Pick<Lite, "url" | "token">,
  basin: string,
  streams: string[] | Record<string, unknown> = [],
  config?: unknown,
): Promise<void> {
  const c = liteClient(lite);
  const made = await c.call("POST", "/v1/basins", { json: config === undefined ? { basin } : { basin, config } });
  if (made.status !== 201) throw new Error(`creating basin ${basin}: ${made.status} ${made.text()}`);
  const entries: [string, unknown][] = Array.isArray(streams)
    ? streams.map((name) => [name, undefined])
    : Object.entries(streams);
  for (const [stream, cfg] of entries) {
    const r = await c.call("POST", "/v1/streams", {
      basin,
      json: cfg === undefined ? { stream } : { stream, config: cfg },
    });
    if (r.status !== 201) throw new Error(`creating stream ${stream}: ${r.status} ${r.text()}`);
  }
}

let counter = 0;
/** A basin name unique within the run (8..48 chars of [a-z0-9-]). */
export function uniqueBasin(tag = "b"): string {
  counter += 1;
  return `${tag}-${process.pid}-${counter}-${Math.random().toString(36).slice(2, 8)}`.toLowerCase().slice(0, 48);
}

/** Polls `fn` until it returns a truthy value, at most `timeoutMs`. */
export async function eventually<T>(
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 10_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A loopback port that was free a moment ago (for a server restarted on the same port, or a closed port). */
export async function freePort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}
