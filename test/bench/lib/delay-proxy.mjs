/**
 * A TCP proxy on loopback that delays every chunk by a fixed time in each direction, keeping
 * order: a database "far away" (a database on another host is 0.2-2 ms away). Used by the
 * PostgreSQL benches and the multi-node tests (test/helpers re-exports it).
 *
 *   const proxy = await startDelayProxy(5432, 2); // 2 ms each way
 *   proxy.port; proxy.setDelay(100); await proxy.close();
 */
import net from "node:net";
import { Worker } from "node:worker_threads";

/** What the clock thread runs: it sleeps on a futex until the deadline, then wakes the proxy. */
const CLOCK_THREAD = `
const { workerData, parentPort } = require("node:worker_threads");
const seq = new Int32Array(workerData, 0, 1);
const deadline = new Float64Array(workerData, 8, 1);
const now = () => { const [sec, ns] = process.hrtime(); return sec * 1e3 + ns / 1e6; };
for (;;) {
  const s = Atomics.load(seq, 0);
  const wait = deadline[0] - now();
  if (wait <= 0) {
    deadline[0] = Infinity;
    parentPort.postMessage(0);
    Atomics.wait(seq, 0, s);
  } else {
    Atomics.wait(seq, 0, s, wait === Infinity ? undefined : wait);
  }
}`;

/**
 * Timers to a tenth of a millisecond. Node's count whole milliseconds (a fraction is cut off),
 * and a chunk held "2 ms" by them left after 2.1-3 ms: the far database was farther than said.
 * A thread of its own sleeps until the earliest deadline (a futex wait, no spinning) and wakes
 * this one. Every wake runs what is due and sets the next deadline, so a deadline overwritten
 * in a race is set again. Both threads read the monotonic clock (hrtime): each thread's
 * `performance` has its own origin.
 */
function preciseTimers() {
  const shared = new SharedArrayBuffer(16);
  const seq = new Int32Array(shared, 0, 1);
  const deadline = new Float64Array(shared, 8, 1);
  deadline[0] = Infinity;
  const thread = new Worker(CLOCK_THREAD, { eval: true, workerData: shared });
  thread.unref();
  const pending = [];
  const now = () => {
    const [sec, ns] = process.hrtime();
    return sec * 1e3 + ns / 1e6;
  };
  const arm = () => {
    const next = pending.length > 0 ? pending[0].at : Infinity;
    if (next === deadline[0]) return;
    deadline[0] = next;
    Atomics.add(seq, 0, 1);
    Atomics.notify(seq, 0);
  };
  thread.on("message", () => {
    const t = now();
    while (pending.length > 0 && pending[0].at <= t) pending.shift().fn();
    arm();
  });
  return {
    /** Runs `fn` `ms` from now; a truthy handle. */
    after(ms, fn) {
      const at = now() + ms;
      let i = pending.length;
      while (i > 0 && pending[i - 1].at > at) i--;
      pending.splice(i, 0, { at, fn });
      arm();
      return true;
    },
    close: () => thread.terminate(),
  };
}

const coarseTimers = { after: (ms, fn) => setTimeout(fn, ms), close: async () => {} };

/**
 * Forwards `from` to `to`, each chunk `delayMs()` after it arrived, never before the chunk
 * ahead of it. Reading pauses while more than 8 MiB wait (backpressure). A chunk that arrives
 * while `dropped()` says so is thrown away (a lost packet that is never sent again).
 */
function pipeDelayed(from, to, delayMs, timers, dropped = () => false) {
  const queue = [];
  let queued = 0;
  let timer;
  const flush = () => {
    timer = undefined;
    const now = performance.now();
    while (queue.length > 0 && queue[0].at <= now) {
      const { chunk } = queue.shift();
      queued -= chunk.length;
      if (!to.destroyed) to.write(chunk);
    }
    if (queued < 8 << 20 && from.isPaused()) from.resume();
    if (queue.length > 0) timer = timers.after(Math.max(0, queue[0].at - performance.now()), flush);
    else if (from.readableEnded && !to.destroyed) to.end();
  };
  from.on("data", (chunk) => {
    if (dropped()) return;
    queue.push({ chunk, at: performance.now() + delayMs() });
    queued += chunk.length;
    if (queued >= 8 << 20) from.pause();
    timer ??= timers.after(Math.max(0, queue[0].at - performance.now()), flush);
  });
  from.on("end", () => {
    if (queue.length === 0 && !to.destroyed) to.end();
  });
}

/**
 * `precise`: hold chunks to a tenth of a millisecond (a thread of its own; the benches' proxy
 * process uses it); otherwise Node's timers (whole milliseconds, up to ~1 ms more).
 *
 * Faults for the multi-node tests, both silent (no reset, no FIN: the sockets stay open and
 * bytes are lost, as in a network partition or on a host that stopped answering):
 * `partition()` drops every byte, both ways, on every connection (and new ones) until
 * `heal()`; `silence(match)` makes the connections open now whose first bytes from the client
 * contain `match` (a PostgreSQL startup message carries the application_name) drop every byte
 * for good, and returns how many it silenced.
 * @returns {Promise<{ port: number, setDelay(ms: number): void, partition(): void, heal(): void, retarget(port: number): void,
 *   silence(match: string): number, close(): Promise<void> }>}
 */
export async function startDelayProxy(targetPort, delayMs, targetHost = "127.0.0.1", { precise = false } = {}) {
  const timers = precise ? preciseTimers() : coarseTimers;
  let delay = delayMs;
  let partitioned = false;
  let target = targetPort;
  const sockets = new Set();
  const pairs = new Set();
  const server = net.createServer((client) => {
    const upstream = net.connect(target, targetHost);
    const pair = { hello: "", silent: false };
    pairs.add(pair);
    client.once("close", () => pairs.delete(pair));
    client.on("data", (chunk) => {
      if (pair.hello.length < 4096) pair.hello += chunk.toString("latin1");
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.setNoDelay(true);
      s.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
      s.on("close", () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    const dropped = () => partitioned || pair.silent;
    pipeDelayed(client, upstream, () => delay, timers, dropped);
    pipeDelayed(upstream, client, () => delay, timers, dropped);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: server.address().port,
    setDelay(ms) {
      delay = ms;
    },
    partition() {
      partitioned = true;
    },
    heal() {
      partitioned = false;
    },
    /** New connections go to `port` (an address that moves to a promoted standby); open ones stay. */
    retarget(port) {
      target = port;
    },
    silence(match) {
      let n = 0;
      for (const p of pairs) {
        if (!p.silent && p.hello.includes(match)) {
          p.silent = true;
          n++;
        }
      }
      return n;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
      await timers.close();
    },
  };
}

/**
 * The same proxy in a process of its own, for benches: in the load generator's process its
 * timers wait behind the clients' work, and the database would seem farther than `delayMs`
 * the busier the clients are.
 */
export async function startDelayProxyProcess(targetPort, delayMs, targetHost = "127.0.0.1") {
  const { spawn } = await import("node:child_process");
  const child = spawn(process.execPath, [import.meta.filename, String(targetPort), String(delayMs), targetHost], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = /^port (\d+)$/m.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.on("exit", (code) => reject(new Error(`the delay proxy exited ${code}`)));
  });
  return {
    port,
    async close() {
      child.kill();
      await new Promise((r) => (child.exitCode !== null ? r() : child.on("exit", r)));
    },
  };
}

if (process.argv[1] === import.meta.filename) {
  const [targetPort, delayMs, targetHost] = process.argv.slice(2);
  const proxy = await startDelayProxy(Number(targetPort), Number(delayMs), targetHost, { precise: true });
  console.log(`port ${proxy.port}`);
}
