/**
 * Synchronous queries for the Storage read methods, which are synchronous by contract (the
 * store and the read engine call them inline). A worker thread owns one connection; the
 * caller posts the query and blocks on a shared flag (Atomics.wait) until the worker has put
 * the rows on a MessagePort, then takes them with receiveMessageOnPort. One query at a time;
 * the event loop is held for one round trip (~0.1-0.3 ms on a LAN), and at most `timeoutMs`
 * when the database does not answer (then the request fails with 503 `unavailable`).
 *
 * A database that stops answering without closing the connection (a frozen host, a
 * partition) would otherwise hold the whole node for `timeoutMs` at every read, one after
 * another. So a timeout opens a circuit: until the worker answers again, reads fail at once
 * with 503 `unavailable`; once the timed-out query (or a later probe, `SELECT 1`, sent in the
 * background) is answered without error, reads go through again. The worker gives up on a
 * query after twice `timeoutMs` (query_timeout) and reconnects for the next one.
 */
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import type pg from "pg";
import { SvcError } from "../../../errors.js";

interface Answer { id: number; rows?: unknown[][]; error?: string; code?: string }

export class SyncQuery {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly signal = new Int32Array(new SharedArrayBuffer(4));
  private nextId = 1;
  /** Open circuit: the id whose answer is awaited (a timed-out query or a probe), and since when. */
  private stuck: { id: number; since: number } | undefined;

  constructor(options: pg.ClientConfig, private readonly timeoutMs = 5_000) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(new URL("./sync-worker.js", import.meta.url), {
      // The worker gives up later than the caller, so a caller's timeout (not the worker's
      // error answer) is what opens the circuit.
      workerData: { options: { ...options, query_timeout: 2 * timeoutMs }, flag: this.signal.buffer, port: port2 },
      transferList: [port2],
    });
    this.worker.unref();
  }

  /** Rows as arrays of column values, in the order of the select list. */
  query(sql: string, params: unknown[] = []): unknown[][] {
    if (this.stuck && !this.recovered(this.stuck)) {
      throw unavailable(`the database has not answered for ${Math.round((Date.now() - this.stuck.since) / 1000)} s`);
    }
    const id = this.nextId++;
    this.worker.postMessage({ id, sql, params });
    const deadline = Date.now() + this.timeoutMs;
    for (;;) {
      const seen = Atomics.load(this.signal, 0);
      if (seen >= id) break;
      const left = deadline - Date.now();
      if (left <= 0) {
        this.stuck = { id, since: Date.now() - this.timeoutMs };
        throw unavailable(`the database did not answer within ${this.timeoutMs} ms`);
      }
      Atomics.wait(this.signal, 0, seen, left);
    }
    for (;;) {
      // Answers of earlier calls that timed out are skipped.
      for (let m = receiveMessageOnPort(this.port); m; m = receiveMessageOnPort(this.port)) {
        const a = m.message as Answer;
        if (a.id !== id) continue;
        if (a.error !== undefined) throw unavailable(`database read failed: ${a.error}`, a.code);
        return a.rows!;
      }
      throw unavailable("the database answer was lost");
    }
  }

  /**
   * Open circuit: true (closed again) once the awaited answer came without error; after an
   * error answer a probe is sent in the background and awaited instead. Never blocks.
   */
  private recovered(stuck: { id: number; since: number }): boolean {
    if (Atomics.load(this.signal, 0) < stuck.id) return false;
    let answer: Answer | undefined;
    for (let m = receiveMessageOnPort(this.port); m; m = receiveMessageOnPort(this.port)) {
      const a = m.message as Answer;
      if (a.id === stuck.id) answer = a;
    }
    if (answer && answer.error === undefined) {
      this.stuck = undefined;
      return true;
    }
    const probe = this.nextId++;
    this.worker.postMessage({ id: probe, sql: "SELECT 1", params: [] });
    stuck.id = probe;
    return false;
  }

  async close(): Promise<void> {
    this.port.close();
    await this.worker.terminate();
  }
}

function unavailable(message: string, code?: string): SvcError {
  return new SvcError({ code: "unavailable", origin: "server", status: 503, retryable: true, message: code ? `${message} (${code})` : message });
}
