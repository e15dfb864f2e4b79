/**
 * The worker half of SyncQuery (sync-query.ts): one connection, one query at a time. The
 * answer goes out on the port first, then the flag is raised and the blocked caller woken.
 */
import { parentPort, workerData, type MessagePort } from "node:worker_threads";
import pg from "pg";

interface Init { options: pg.ClientConfig; flag: SharedArrayBuffer; port: MessagePort }
interface Ask { id: number; sql: string; params: unknown[] }

const { options, flag, port } = workerData as Init;
const signal = new Int32Array(flag);
let client: pg.Client | undefined;

async function connected(): Promise<pg.Client> {
  if (client) return client;
  const c = new pg.Client({ ...options, statement_timeout: 10_000 });
  c.on("error", () => { if (client === c) client = undefined; });
  await c.connect();
  client = c;
  return c;
}

parentPort!.on("message", (ask: Ask) => {
  void (async () => {
    let answer: { id: number; rows?: unknown[]; error?: string; code?: string };
    try {
      const c = await connected();
      const r = await c.query({ text: ask.sql, values: ask.params, rowMode: "array" });
      answer = { id: ask.id, rows: r.rows };
    } catch (e) {
      const err = e as Error & { code?: string };
      if (client && (err.code === undefined || /^(08|57)/.test(err.code))) { void client.end().catch(() => {}); client = undefined; }
      answer = { id: ask.id, error: err.message, ...(err.code === undefined ? {} : { code: err.code }) };
    }
    port.postMessage(answer);
    Atomics.store(signal, 0, ask.id);
    Atomics.notify(signal, 0);
  })();
});
