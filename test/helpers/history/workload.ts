/**
 * A concurrent workload that records a history (docs/design/reliability.md, "Collection"): logical
 * clients issue back-to-back ops against one stream with the op mix 40 % append (unary or a
 * pipelined append session), 25 % unary read, 15 % check-tail, 20 % read session, in one of
 * four workflows:
 *
 *   regular        appends without conditions
 *   match-seq-num  every append names the client's guess of the tail (clients race)
 *   fencing        appends carry the client's known token; every 100 ops a new token is due
 *                  and clients race to fence it, each try guarded by match_seq_num
 *   trim           10 % of appends carry a trim command a little below the known tail
 *
 * An indefinite outcome retires the client id (its session is dropped) and a fresh id takes
 * over, as the S2 verification collector does. Faults are the caller's business: `beforeOp`
 * runs before every op and may kill, drain or cut connections. `streamFor` sends each op
 * through a stream chosen by the op's client id (several servers on one store: each client
 * keeps its server, the clients use them all).
 */

import type { Appender } from "../../../src/client/appender.js";
import type { StreamClient } from "../../../src/client/stream.js";
import { fenceRecord, trimRecord } from "../../../src/rules/commands.js";
import type { AppendInput, AppendRecord } from "../../../src/types.js";
import type { Recorder } from "./recorder.js";
import type { Op } from "./types.js";

export type Workflow = "regular" | "match-seq-num" | "fencing" | "trim";
export const WORKFLOWS: Workflow[] = ["regular", "match-seq-num", "fencing", "trim"];

export interface WorkloadOptions {
  stream: StreamClient;
  /** The stream this client id's ops go through (default: `stream` for every client). */
  streamFor?: (client: number) => StreamClient;
  name: string;
  recorder: Recorder;
  workflow: Workflow;
  clients: number;
  ops: number;
  random: () => number;
  /** Called with the op number before each op; may await a fault. */
  beforeOp?: (n: number) => Promise<void> | void;
  /** At most this many client ids per logical client slot over the run (default 20 total). */
  maxClientIds?: number;
}

const enc = new TextEncoder();

export async function runWorkload(o: WorkloadOptions): Promise<{ retired: number }> {
  const { stream, recorder: rec, random, workflow } = o;
  const int = (lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));
  let issued = 0;
  let nextClient = 0;
  let retired = 0;
  let fenceNo = 0;
  const fences = new WeakMap<AppendInput, string>();
  /** The token an acked input set, if it carried a fence. */
  const fenced = (input: AppendInput): string | undefined => {
    const t = fences.get(input);
    if (t !== undefined) fenceNo++;
    return t;
  };
  const maxIds = o.maxClientIds ?? 20;
  const body = (client: number, n: number, i: number): AppendRecord => ({
    headers: [],
    body: enc.encode(`${o.name}|c${client}|${n}|${i}|${"x".repeat(int(0, 40))}`),
  });

  async function slot(): Promise<void> {
    let client = nextClient++;
    let session: Appender | undefined;
    let tail = 0;
    let token = "";
    let n = 0;
    const via = (): StreamClient => o.streamFor?.(client) ?? stream;
    const retire = async (): Promise<void> => {
      const s = session;
      session = undefined;
      void s?.close().catch(() => undefined);
      if (nextClient < maxIds) {
        client = nextClient++;
        retired++;
      }
    };
    const learn = (): void => {
      const last = rec.ops[rec.ops.length - 1];
      if (!last || last.client !== client) return;
      if (last.kind === "append") {
        if (last.end !== undefined) tail = Math.max(tail, last.end);
        if (last.expectedSeqNum !== undefined) tail = last.expectedSeqNum;
        if (last.currentToken !== undefined) token = last.currentToken;
      }
    };
    const input = (): AppendInput => {
      const records = Array.from({ length: int(1, 5) }, (_, i) => body(client, n, i));
      const input: AppendInput = { records };
      if (workflow === "match-seq-num") input.matchSeqNum = tail;
      if (workflow === "fencing") {
        input.fencingToken = token;
        // Every 100 ops a new token is due: clients race to fence (each try guarded by
        // match_seq_num) until one succeeds.
        if (issued >= (fenceNo + 1) * 100) {
          input.matchSeqNum = tail;
          const t = `${o.name}-t${fenceNo + 1}-c${client}-${n}`;
          records.push(fenceRecord(t));
          fences.set(input, t);
        }
      }
      // Trims a little below the known tail; one in five asks for a point beyond it (clamped
      // by the server to the command's own position + 1).
      if (workflow === "trim" && random() < 0.1 && tail > 5)
        records.push(trimRecord(random() < 0.2 ? tail + 100 : Math.max(0, tail - int(0, 30))));
      n++;
      return input;
    };
    while (issued < o.ops) {
      const opNo = issued++;
      await o.beforeOp?.(opNo);
      const roll = random();
      if (roll < 0.2) {
        const inp = input();
        const ack = await rec.append(client, o.name, "unary", inp, () => via().append(inp));
        if (ack) {
          tail = Math.max(tail, ack.end.seqNum);
          token = fenced(inp) ?? token;
        }
        const last = rec.ops[rec.ops.length - 1]!;
        learn();
        if (last.outcome === "info") await retire();
        else if (
          last.outcome === "fail" &&
          last.error !== "seq_num_mismatch" &&
          last.error !== "fencing_token_mismatch"
        )
          await pause();
      } else if (roll < 0.4) {
        // A session append: pipeline 1..3 inputs (with conditions only the first can match).
        try {
          session ??= await via().appender({ reconnectBudgetMs: 5_000, ackTimeoutMs: 10_000 });
        } catch {
          await pause();
          continue;
        }
        const s = session;
        const k = workflow === "regular" || workflow === "trim" ? int(1, 3) : 1;
        const inputs = Array.from({ length: k }, input);
        const results = await Promise.all(
          inputs.map((inp) => rec.append(client, o.name, "session", inp, () => s.append(inp))),
        );
        const mine = rec.ops.slice(-k);
        for (const [i, ack] of results.entries()) {
          if (ack) {
            tail = Math.max(tail, ack.end.seqNum);
            token = fenced(inputs[i]!) ?? token;
          }
        }
        for (const op of mine)
          if (op.kind === "append") {
            if (op.expectedSeqNum !== undefined) tail = op.expectedSeqNum;
            if (op.currentToken !== undefined) token = op.currentToken;
          }
        if (mine.some((op) => op.outcome !== "ok")) {
          // A failed session is finished; an indefinite outcome retires the client.
          if (mine.some((op) => op.outcome === "info")) await retire();
          else {
            const s2 = session;
            session = undefined;
            void s2?.close().catch(() => undefined);
          }
        }
      } else if (roll < 0.65) {
        const from = Math.max(0, tail - int(0, 40));
        const limit = int(1, 60);
        const batch = await rec.read(client, o.name, from, limit, () =>
          via().readBatch({ seqNum: from }, { count: limit }),
        );
        const last = rec.ops[rec.ops.length - 1]!;
        if (last.kind === "read" && last.tail !== undefined) tail = Math.max(tail, last.tail);
        if (!batch && last.outcome !== "ok") await pause();
      } else if (roll < 0.8) {
        const t = await rec.checkTail(client, o.name, () => via().checkTail());
        if (t !== undefined) tail = Math.max(tail, t);
        else await pause();
      } else {
        const from = Math.max(0, tail - int(0, 40));
        // Mostly records that exist already (the session ends without waiting), sometimes
        // a few beyond the tail (it follows live appends).
        const count = Math.max(1, Math.min(int(1, 40), tail - from + (random() < 0.2 ? 5 : 0)));
        const ac = new AbortController();
        const timer = setTimeout(() => ac.abort(), 1_500);
        await rec.readSession(
          client,
          o.name,
          from,
          count,
          via().read({ seqNum: from }, { count, wait: 1 }, { signal: ac.signal, retries: 1, follow: false }),
        );
        clearTimeout(timer);
      }
    }
    await session?.close().catch(() => undefined);
  }
  await Promise.all(Array.from({ length: o.clients }, slot));
  return { retired };
}

function pause(): Promise<void> {
  return new Promise((r) => setTimeout(r, 20));
}

/**
 * Reads a whole stream (paged unary reads) for the history's `final` section, up to its tail
 * once no append has landed for `quietMs`. A writer whose connection was cut has given up on
 * inputs lite received and still commits: those land after the writer's last op, and a final
 * read that raced them reported records past the tail it had checked (C3, a false alarm seen
 * once in CI). Waiting for quiet lets the check see them; each page is bounded by the tail, so
 * the snapshot is consistent even if something lands later.
 */
export async function readFinal(
  stream: StreamClient,
  key: (r: { headers: { name: Uint8Array; value: Uint8Array }[]; body: Uint8Array }) => string,
  quietMs = 100,
  trimmedTo = 0,
): Promise<{ first: number; tail: number; records: { seq: number; key: string }[] }> {
  const tail = await settledTail(stream, quietMs);
  // Trims are carried out a while after them (protocol.md §7.7): read again until the stream
  // starts at or past `trimmedTo` (ackedTrimPoint), for up to 10 s; the checks judge the rest.
  for (const deadline = Date.now() + 10_000; ; ) {
    const records: { seq: number; key: string }[] = [];
    await readInto(stream, key, 0, tail, records);
    const first = records[0]?.seq ?? tail;
    if (first >= Math.min(trimmedTo, tail) || Date.now() > deadline) return { first, tail, records };
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The trim point that the acknowledged trim commands of `stream` in `ops` set (each
 * min(point, own seq + 1)): what a final read waits for the server to carry out.
 */
export function ackedTrimPoint(ops: readonly Op[], stream: string): number {
  let point = 0;
  for (const o of ops) {
    if (o.kind !== "append" || o.stream !== stream || o.outcome !== "ok" || o.start === undefined) continue;
    const start = o.start;
    o.records.forEach((k, i) => {
      if (k.startsWith("trim:")) point = Math.max(point, Math.min(Number(k.slice(5)), start + i + 1));
    });
  }
  return point;
}

/** The tail, once two checks `quietMs` apart agree (at most 5 s). */
async function settledTail(stream: StreamClient, quietMs: number): Promise<number> {
  let tail = (await stream.checkTail()).seqNum;
  for (const deadline = Date.now() + 5_000; quietMs > 0 && Date.now() < deadline; ) {
    await new Promise((r) => setTimeout(r, quietMs));
    const now = (await stream.checkTail()).seqNum;
    if (now === tail) break;
    tail = now;
  }
  return tail;
}

/** Paged unary reads of [from, tail), each record's key appended to `records`. */
async function readInto(
  stream: StreamClient,
  key: (r: { headers: { name: Uint8Array; value: Uint8Array }[]; body: Uint8Array }) => string,
  from: number,
  tail: number,
  records: { seq: number; key: string }[],
): Promise<void> {
  let pos = from;
  while (pos < tail) {
    const b = await stream.readBatch({ seqNum: pos }, { count: Math.min(1000, tail - pos) });
    if (b.records.length === 0) break;
    for (const r of b.records) records.push({ seq: r.seqNum, key: key(r) });
    pos = b.records[b.records.length - 1]!.seqNum + 1;
  }
}

/**
 * `readFinal` for a stream read before: keeps `prev`'s records below `prev.tail - overlap` and
 * reads the rest again (the overlap, where a restart that reloaded a wrong tail would reuse
 * seq nums, and everything after it). For streams that grow by hundreds of MiB between
 * checks; records further back are not re-read, so callers still read in full now and then.
 * A stream whose tail went back below the kept part is read in full.
 */
export async function readFinalFrom(
  stream: StreamClient,
  key: (r: { headers: { name: Uint8Array; value: Uint8Array }[]; body: Uint8Array }) => string,
  prev: { first: number; tail: number; records: { seq: number; key: string }[] },
  overlap = 1000,
): Promise<{ first: number; tail: number; records: { seq: number; key: string }[] }> {
  const from = Math.max(prev.first, prev.tail - overlap);
  const tail = (await stream.checkTail()).seqNum;
  if (tail < from || from <= prev.first) return readFinal(stream, key);
  const records = prev.records.filter((r) => r.seq < from);
  await readInto(stream, key, from, tail, records);
  return { first: records[0]?.seq ?? tail, tail, records };
}
