#!/usr/bin/env node
/**
 * Thousands of followers of one stream: one writer appends one-record batches at a fixed rate
 * (lib/fanout-writer.mjs, its own process) while N readers follow the stream from seq 0
 * (lib/fanout-followers.mjs, their own process); each record carries its send time, so every
 * arrival gives a latency. Each figure runs on a fresh lite (or a fresh floor server), and
 * reports: every record delivered to every follower in order (complete / followers, disorder),
 * send → arrival p50/p99, lite's CPU per delivery (one record to one follower), the writer's
 * rate and ack latency, and lite's RSS. The baseline is Node's own floor in the same run
 * (lib/fanout-floor.mjs: a bare server writing one shared buffer to the same followers), so
 * lite's CPU per delivery is reported as a ratio to it.
 *
 *   node test/bench/fanout.mjs     (build first)
 *   FANOUT_PARTS=floor_h2,sse_h2   runs only those parts; FANOUT_SECS (10), FANOUT_N (1000)
 *
 * Parts (each floor_* is the baseline of the part after it, with the same followers):
 * floor_h2, sse_h2 (SSE over h2c, 90 per connection); floor_h1, sse_h1 (HTTP/1.1); floor_proto,
 * proto (svc/proto read sessions, 100 per connection); mix (raw and base64 SSE, against
 * floor_h2); alone (the writer with no follower: its ack latency); slow (one follower of 1,000,
 * on a connection of its own, stops reading for the whole run, then reads again); floor_ten_k,
 * ten_k (10,000 sessions at 10 records/s); pg (two lite nodes on one PostgreSQL, 500 followers
 * on each, the writer on the first). On a 2-core machine the followers' own process is the
 * bottleneck of latency well before lite is: compare p99 with the floor's, whose followers are
 * the same.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { round, startBenchLite } from "./lib/lite.mjs";

const here = import.meta.dirname;
const SECS = Number(process.env.FANOUT_SECS ?? 10);
const N = Number(process.env.FANOUT_N ?? 1000);
const PARTS = (
  process.env.FANOUT_PARTS ?? "floor_h2,sse_h2,floor_h1,sse_h1,floor_proto,proto,mix,alone,slow,floor_ten_k,ten_k,pg"
).split(",");
const BASIN = "fanout-bench";
const STREAM = "chat";
const TICK = 100; // clock ticks per second (/proc)

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** CPU seconds and RSS (MiB) of a process so far. */
function usage(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { cpu: (Number(f[11]) + Number(f[12])) / TICK, rssMiB: kb("VmRSS") / 1024, hwmMiB: kb("VmHWM") / 1024 };
}

/** A child node process speaking JSON lines on stdout; `next()` resolves with the next line. */
function child(script, args, env = {}) {
  const p = spawn(process.execPath, [join(here, "lib", script), ...args], {
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, ...env },
  });
  const lines = [];
  const waiters = [];
  let buf = "";
  p.stdout.on("data", (d) => {
    buf += d;
    for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
      const line = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      const w = waiters.shift();
      if (w) w(line);
      else lines.push(line);
    }
  });
  return {
    proc: p,
    next: () => (lines.length ? Promise.resolve(lines.shift()) : new Promise((r) => waiters.push(r))),
    send: (cmd) => p.stdin.write(`${cmd}\n`),
    kill: () => p.kill("SIGKILL"),
  };
}

async function prepare(lite) {
  const headers = { authorization: `Bearer ${lite.token}`, "content-type": "application/json" };
  const basin = await fetch(`${lite.url}/v1/basins`, {
    method: "POST",
    headers,
    body: JSON.stringify({ basin: BASIN }),
  });
  if (basin.status !== 201) throw new Error(`basin: ${basin.status} ${await basin.text()}`);
  const stream = await fetch(`${lite.url}/v1/streams`, {
    method: "POST",
    headers: { ...headers, "svc-basin": BASIN },
    body: JSON.stringify({ stream: STREAM }),
  });
  if (stream.status !== 201) throw new Error(`stream: ${stream.status} ${await stream.text()}`);
}

/** Followers of `targets` (one lite or several nodes), a writer to targets[0], figures. */
async function measure(targets, pid, { n, perConn, kind, h1 = false, rate, slow = false }) {
  const followers = child("fanout-followers.mjs", [
    JSON.stringify({ targets, basin: BASIN, stream: STREAM, n, perConn, kind, h1, slow }),
  ]);
  try {
    if (n > 0) await followers.next(); // {ready}: every follower heard from the server
    if (slow) followers.send("pause");
    const before = usage(pid);
    const writer = child("fanout-writer.mjs", [
      JSON.stringify({ ...targets[0], basin: BASIN, stream: STREAM, rate, secs: SECS }),
    ]);
    const w = await writer.next();
    await sleep(500); // the last deliveries
    const after = usage(pid);
    let report = { followers: 0 };
    if (n > 0) {
      followers.send(`report ${w.acked}`);
      report = await followers.next();
    }
    const deliveries = report.delivered ?? 0;
    const out = {
      ...report,
      writer: { rate: round(w.rate, 1), asked: rate, ack_p50_ms: round(w.ack_p50_ms), ack_p99_ms: round(w.ack_p99_ms) },
      cpu_s: round(after.cpu - before.cpu),
      us_per_delivery: deliveries ? round(((after.cpu - before.cpu) * 1e6) / deliveries, 2) : undefined,
      rss_mib: round(after.rssMiB, 1),
      hwm_mib: round(after.hwmMiB, 1),
    };
    if (slow) {
      followers.send("resume");
      await sleep(3_000);
      followers.send(`report ${w.acked}`);
      out.slow_after_resume = (await followers.next()).slow;
    }
    return out;
  } finally {
    followers.kill();
  }
}

/** The floor: a bare server writing one buffer per record to the same followers. */
async function floor({ h1 = false, kind = "sse", n = N, perConn = 90, rate = 100 } = {}) {
  const server = child("fanout-floor.mjs", [], { ...(h1 ? { H1: "1" } : {}), KIND: kind });
  const { port } = await server.next();
  const followers = child("fanout-followers.mjs", [
    JSON.stringify({
      targets: [{ url: `http://127.0.0.1:${port}`, token: "-" }],
      basin: BASIN,
      stream: STREAM,
      n,
      perConn,
      kind,
      h1,
    }),
  ]);
  try {
    await followers.next();
    server.send(`go ${rate} ${SECS}`);
    const res = await server.next();
    await sleep(500);
    followers.send(`report ${rate * SECS}`);
    const rep = await followers.next();
    return { ...rep, cpu_s: round(res.cpu_s), us_per_delivery: round(res.us_per_delivery, 2) };
  } finally {
    followers.kill();
    server.kill();
  }
}

async function onLite(opts, startArgs = [], env = {}) {
  const lite = await startBenchLite(startArgs, env);
  try {
    await prepare(lite);
    return await measure([{ url: lite.url, token: lite.token }], lite.pid, opts);
  } finally {
    await lite.stop();
  }
}

async function onPostgres() {
  const { PG_PASSWORD, startPostgres } = await import("./lib/postgres.mjs");
  const pg = await startPostgres();
  const nodes = [];
  try {
    const env = { PGPASSWORD: PG_PASSWORD };
    const url = pg.adminUrl.replace(/:[^:@/]*@/, "@");
    for (let i = 0; i < 2; i++) nodes.push(await startBenchLite(["--storage", url], env));
    await prepare(nodes[0]);
    const targets = nodes.map((l) => ({ url: l.url, token: nodes[0].token }));
    const res = await measure(targets, nodes[0].pid, { n: N, perConn: 90, kind: "sse", rate: 100 });
    res.node2_cpu_s = undefined; // CPU above is the writer's node's
    return res;
  } finally {
    for (const l of nodes) await l.stop();
    await pg.stop();
  }
}

const parts = {
  floor_h2: () => floor(),
  sse_h2: () => onLite({ n: N, perConn: 90, kind: "sse", rate: 100 }),
  floor_h1: () => floor({ h1: true }),
  sse_h1: () => onLite({ n: N, perConn: 90, kind: "sse", h1: true, rate: 100 }),
  floor_proto: () => floor({ kind: "proto", perConn: 100 }),
  proto: () => onLite({ n: N, perConn: 100, kind: "proto", rate: 100 }),
  mix: () => onLite({ n: N, perConn: 90, kind: "mix", rate: 100 }),
  alone: () => onLite({ n: 0, perConn: 90, kind: "sse", rate: 100 }),
  slow: () => onLite({ n: N, perConn: 90, kind: "sse", rate: 100, slow: true }),
  floor_ten_k: () => floor({ kind: "proto", n: 10 * N, perConn: 100, rate: 10 }),
  ten_k: () => onLite({ n: 10 * N, perConn: 100, kind: "proto", rate: 10 }),
  pg: () => onPostgres(),
};

const figures = {};
for (const p of PARTS) {
  try {
    figures[p] = await parts[p]();
  } catch (e) {
    figures[p] = { error: String(e.message ?? e).split("\n")[0] };
  }
  process.stderr.write(`${p}: ${JSON.stringify(figures[p])}\n`);
}

const ratio = (a, b) => (a !== undefined && b ? round(a / b, 2) : undefined);
const f = figures;
const vs = (part, base) => ({
  cpu_per_delivery: ratio(f[part]?.us_per_delivery, f[base]?.us_per_delivery),
  p99: ratio(f[part]?.p99_ms, f[base]?.p99_ms),
});
const summary = {
  // lite against Node's own floor with the same followers (1.0 = as cheap as one shared write per follower)
  sse_h2_vs_floor: vs("sse_h2", "floor_h2"),
  sse_h1_vs_h1_floor: vs("sse_h1", "floor_h1"),
  proto_vs_floor: vs("proto", "floor_proto"),
  mix_vs_floor: vs("mix", "floor_h2"),
  ten_k_vs_floor: vs("ten_k", "floor_ten_k"),
  writer_ack_p99_with_1000_followers_vs_alone: ratio(f.sse_h2?.writer?.ack_p99_ms, f.alone?.writer?.ack_p99_ms),
  slow_one_others_p99_vs_sse_h2: ratio(f.slow?.p99_ms, f.sse_h2?.p99_ms),
};
console.log(JSON.stringify({ secs: SECS, followers: N, summary, figures }));
process.exit(0);
