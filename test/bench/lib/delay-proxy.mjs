/**
 * A TCP proxy on loopback that delays every chunk by a fixed time in each direction, keeping
 * order: a database "far away" (a database on another host is 0.2-2 ms away). Used by the
 * PostgreSQL benches and the multi-node tests (test/helpers re-exports it).
 *
 *   const proxy = await startDelayProxy(5432, 2); // 2 ms each way
 *   proxy.port; proxy.setDelay(100); await proxy.close();
 */
import net from "node:net";

/**
 * Forwards `from` to `to`, each chunk `delayMs()` after it arrived, never before the chunk
 * ahead of it. Reading pauses while more than 8 MiB wait (backpressure).
 */
function pipeDelayed(from, to, delayMs) {
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
    if (queue.length > 0) timer = setTimeout(flush, Math.max(0, queue[0].at - performance.now()));
    else if (from.readableEnded && !to.destroyed) to.end();
  };
  from.on("data", (chunk) => {
    queue.push({ chunk, at: performance.now() + delayMs() });
    queued += chunk.length;
    if (queued >= 8 << 20) from.pause();
    timer ??= setTimeout(flush, Math.max(0, queue[0].at - performance.now()));
  });
  from.on("end", () => { if (queue.length === 0 && !to.destroyed) to.end(); });
}

/** @returns {Promise<{ port: number, setDelay(ms: number): void, close(): Promise<void> }>} */
export async function startDelayProxy(targetPort, delayMs, targetHost = "127.0.0.1") {
  let delay = delayMs;
  const sockets = new Set();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, targetHost);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.setNoDelay(true);
      s.on("error", () => { client.destroy(); upstream.destroy(); });
      s.on("close", () => { sockets.delete(s); client.destroy(); upstream.destroy(); });
    }
    pipeDelayed(client, upstream, () => delay);
    pipeDelayed(upstream, client, () => delay);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: server.address().port,
    setDelay(ms) { delay = ms; },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
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
  const child = spawn(process.execPath, [import.meta.filename, String(targetPort), String(delayMs), targetHost], { stdio: ["ignore", "pipe", "inherit"] });
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
  const proxy = await startDelayProxy(Number(targetPort), Number(delayMs), targetHost);
  console.log(`port ${proxy.port}`);
}
