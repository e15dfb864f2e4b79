/**
 * Search checker (docs/design/reliability.md, "The search"): is there a linearization of the
 * history against a model of one stream? The model state is (tail, fencing token, trim point);
 * record contents are pinned by the direct checks (C1/C7 compare them with the final stream), so
 * the model need not carry a chain hash.
 *
 * Wing & Gong's search with Lowe's memoization: walk the call/return events, try to linearize
 * any op whose call comes before the first pending return, backtrack on failure, and never
 * revisit a (linearized set, state) pair. Indefinite appends are nondeterministic:
 *   - found in the final stream: they must take effect, at their position, any time after
 *     their call (their return is at infinity);
 *   - not found, and the stream was never trimmed: they did not take effect (dropped);
 *   - not found, but the stream was trimmed: they may have taken effect inside the trimmed
 *     prefix, or not at all (optional).
 * A search that exceeds its time budget reports "timeout": a failure to investigate.
 *
 * A read takes effect where its first record is max(start, trim point); with asynchronous
 * trims (History.meta) anywhere from its start up to that point, and a short read may end
 * below the tail when everything up to the tail is trimmed.
 */

import { type AppendOp, asyncTrims, type FinalStream, type History, type Op } from "./types.js";
import { isDataKey } from "./view.js";

export type SearchResult = { result: "ok" | "fail" | "timeout"; stream?: string; message?: string; steps: number };

interface State {
  tail: number;
  token: string;
  trim: number;
}

interface Item {
  op: Op;
  mandatory: boolean;
  optional: boolean;
}

interface Entry {
  kind: "call" | "return";
  item: number;
  time: number;
  prev?: Entry;
  next?: Entry;
  match?: Entry;
}

export function searchCheck(h: History, budgetMs = 60_000): SearchResult {
  let steps = 0;
  const deadline = Date.now() + budgetMs;
  for (const stream of Object.keys(h.final)) {
    const r = searchStream(
      h.ops.filter((o) => o.stream === stream),
      h.final[stream]!,
      deadline,
      asyncTrims(h),
    );
    steps += r.steps;
    if (r.result !== "ok") return { ...r, stream, steps };
  }
  return { result: "ok", steps };
}

/**
 * Where each data record was seen: the final read, and every read or read session (which
 * saw records that a later trim removed; the direct checks hold reads to the stream's
 * contents). Locating more indefinite appends leaves fewer nondeterministic ones.
 */
function witnessed(ops: Op[], final: FinalStream): Map<string, number> {
  const at = new Map<string, number>();
  const add = (records: { seq: number; key: string }[]): void => {
    for (const r of records) if (isDataKey(r.key) && !at.has(r.key)) at.set(r.key, r.seq);
  };
  add(final.records);
  for (const o of ops) {
    if (o.kind === "read") add(o.records);
    else if (o.kind === "read-session") for (const e of o.events) if ("records" in e) add(e.records);
  }
  return at;
}

function items(ops: Op[], final: FinalStream, present: Map<string, number>): Item[] {
  const out: Item[] = [];
  for (const op of ops) {
    if (op.kind === "append") {
      if (op.outcome === "ok") out.push({ op, mandatory: true, optional: false });
      else if (op.outcome === "fail") {
        if (op.error === "seq_num_mismatch" || op.error === "fencing_token_mismatch")
          out.push({ op, mandatory: true, optional: false });
      } else if (op.records.some((k) => present.has(k))) out.push({ op, mandatory: true, optional: false });
      else if (final.first > 0) out.push({ op, mandatory: false, optional: true });
    } else if (op.kind === "check-tail" && op.outcome === "ok") out.push({ op, mandatory: true, optional: false });
    else if (op.kind === "read" && op.outcome === "ok" && (op.records.length > 0 || op.tail !== undefined))
      out.push({ op, mandatory: true, optional: false });
  }
  return out;
}

/** Where an applied append must start: its ack, or where the final stream holds it. */
function startOf(op: AppendOp, at: Map<string, number>): number | undefined {
  if (op.start !== undefined) return op.start;
  for (let i = 0; i < op.records.length; i++) {
    const s = isDataKey(op.records[i]!) ? at.get(op.records[i]!) : undefined;
    if (s !== undefined) return s - i;
  }
  return undefined;
}

function applyAppend(s: State, op: AppendOp): State {
  let { token, trim } = s;
  op.records.forEach((k, i) => {
    if (k.startsWith("fence:")) token = k.slice(6);
    else if (k.startsWith("trim:")) trim = Math.max(trim, Math.min(Number(k.slice(5)), s.tail + i + 1));
  });
  return { tail: s.tail + op.records.length, token, trim };
}

function step(
  s: State,
  it: Item,
  starts: Map<number, number | undefined>,
  holes: [number, number][],
  lateTrims: boolean,
): State | undefined {
  const op = it.op;
  if (op.kind === "check-tail") return op.tail === s.tail ? s : undefined;
  if (op.kind === "read") {
    const first = op.records[0]?.seq;
    const at = Math.max(op.from, s.trim);
    if (first !== undefined && (lateTrims ? first < op.from || first > at : first !== at)) return undefined;
    // A short read's tail (records, fewer than asked) with asynchronous trims: or everything
    // from it up to the tail trimmed.
    const trimmedAfter =
      lateTrims && op.records.length > 0 && op.tail !== undefined && op.tail < s.tail && s.trim >= s.tail;
    if (op.tail !== undefined && op.tail !== s.tail && !trimmedAfter) return undefined;
    return s;
  }
  if (op.kind !== "append") return undefined;
  const refused =
    op.fencingToken !== undefined && op.fencingToken !== s.token
      ? "token"
      : op.matchSeqNum !== undefined && op.matchSeqNum !== s.tail
        ? "seq"
        : undefined;
  if (op.outcome === "fail") {
    if (op.error === "seq_num_mismatch") return refused === "seq" && op.expectedSeqNum === s.tail ? s : undefined;
    return refused === "token" && op.currentToken === s.token ? s : undefined;
  }
  if (refused) return undefined;
  if (it.optional) {
    const hole = holes.find(([a, b]) => a <= s.tail && s.tail < b);
    return hole && s.tail + op.records.length <= hole[1] ? applyAppend(s, op) : undefined;
  }
  return starts.get(op.id) === s.tail ? applyAppend(s, op) : undefined;
}

function trimmedHoles(its: Item[], starts: Map<number, number | undefined>, first: number): [number, number][] {
  const covered: [number, number][] = [];
  for (const it of its) {
    const start =
      it.op.kind === "append" && !it.optional && it.op.outcome !== "fail" ? starts.get(it.op.id) : undefined;
    if (start !== undefined && it.op.kind === "append") covered.push([start, start + it.op.records.length]);
  }
  covered.sort((a, b) => a[0] - b[0]);
  const holes: [number, number][] = [];
  let pos = 0;
  for (const [a, b] of covered) {
    if (a >= first) break;
    if (a > pos) holes.push([pos, a]);
    pos = Math.max(pos, b);
  }
  if (pos < first) holes.push([pos, first]);
  return holes;
}

function searchStream(ops: Op[], final: FinalStream, deadline: number, lateTrims: boolean): SearchResult {
  const at = witnessed(ops, final);
  let its = items(ops, final, at);
  const starts = new Map<number, number | undefined>();
  for (const it of its) if (it.op.kind === "append") starts.set(it.op.id, startOf(it.op, at));
  // Positions below the trim point that no known append covers: only there can an indefinite
  // append that is not in the final stream have landed. No holes: those appends never applied.
  const holes = trimmedHoles(its, starts, final.first);
  // An optional append can only fill a hole it was invoked before the stream passed: once an
  // append placed at or after the hole's end has completed, the tail is beyond the hole.
  const passed = holes.map(([, end]) => {
    let t = Infinity;
    for (const it of its) {
      const s = it.op.kind === "append" && !it.optional ? starts.get(it.op.id) : undefined;
      if (s !== undefined && s >= end && it.op.outcome === "ok" && it.op.complete !== undefined)
        t = Math.min(t, it.op.complete);
    }
    return t;
  });
  its = its.filter(
    (it) =>
      !it.optional ||
      holes.some(([a, b], i) => it.op.invoke < passed[i]! && it.op.kind === "append" && it.op.records.length <= b - a),
  );
  // Events: calls at invoke; returns at complete, or at infinity (mandatory ones first).
  const events: Entry[] = [];
  its.forEach((it, i) => {
    const call: Entry = { kind: "call", item: i, time: it.op.invoke };
    const indefinite = it.op.outcome === "info" || it.op.complete === undefined;
    const ret: Entry = {
      kind: "return",
      item: i,
      time: indefinite ? (it.optional ? Infinity : Number.MAX_VALUE) : it.op.complete!,
    };
    call.match = ret;
    events.push(call, ret);
  });
  events.sort((a, b) => a.time - b.time || (a.kind === b.kind ? 0 : a.kind === "call" ? -1 : 1));
  const head: Entry = { kind: "call", item: -1, time: -Infinity };
  let prev = head;
  for (const e of events) {
    prev.next = e;
    e.prev = prev;
    prev = e;
  }
  const lift = (e: Entry): void => {
    e.prev!.next = e.next;
    if (e.next) e.next.prev = e.prev;
    const r = e.match!;
    r.prev!.next = r.next;
    if (r.next) r.next.prev = r.prev;
  };
  const unlift = (e: Entry): void => {
    const r = e.match!;
    r.prev!.next = r;
    if (r.next) r.next.prev = r;
    e.prev!.next = e;
    if (e.next) e.next.prev = e;
  };
  // Memo key: the state and which MANDATORY ops are linearized. Optional (trimmed-away
  // indefinite) ops count only by number: which subset filled a hole does not matter once
  // the state is the same. This may prune a linearization when two holes compete for the same
  // optional ops (a false "fail", investigated by hand); it never makes a bad history pass.
  // The set of linearized mandatory ops goes into the key as two 32-bit Zobrist hashes kept
  // up to date as ops are done and undone: a key of constant size. (It was a base64 bitmap of
  // every op: on the extended crash run's cumulative histories each key was tens of KiB and
  // the memo set exhausted a 4 GiB heap.) A collision can only prune a path: a false "fail"
  // at worst, never a false "ok".
  const mandatoryIdx = its.map((it) => !it.optional);
  const z1 = new Uint32Array(its.length);
  const z2 = new Uint32Array(its.length);
  for (let i = 0; i < its.length; i++) {
    z1[i] = mix32(2 * i + 1);
    z2[i] = mix32(2 * i + 2);
  }
  let h1 = 0;
  let h2 = 0;
  const toggle = (i: number): void => {
    if (!mandatoryIdx[i]) return;
    h1 = (h1 ^ z1[i]!) >>> 0;
    h2 = (h2 ^ z2[i]!) >>> 0;
  };
  const seen = new Set<string>();
  let optionalUsed = 0;
  const key = (s: State): string => `${s.tail}|${s.token}|${s.trim}|${optionalUsed}|${h1}|${h2}`;
  let state: State = { tail: 0, token: "", trim: 0 };
  const stack: { entry: Entry; state: State }[] = [];
  let entry = head.next;
  let steps = 0;
  let deepest = 0;
  let blocked = "";
  while (head.next) {
    if (++steps % 4096 === 0 && Date.now() > deadline)
      return { result: "timeout", message: `search budget exhausted after ${steps} steps`, steps };
    if (!entry) return { result: "fail", message: "ran off the event list", steps };
    const it = its[entry.item]!;
    if (entry.kind === "call") {
      const next = step(state, it, starts, holes, lateTrims);
      if (next) {
        toggle(entry.item);
        if (it.optional) optionalUsed++;
        const k = key(next);
        if (!seen.has(k)) {
          seen.add(k);
          stack.push({ entry, state });
          state = next;
          lift(entry);
          deepest = Math.max(deepest, stack.length);
          entry = head.next;
          continue;
        }
        toggle(entry.item);
        if (it.optional) optionalUsed--;
      }
      entry = entry.next;
      continue;
    }
    if (it.optional) return { result: "ok", steps }; // every mandatory op is linearized
    if (stack.length >= deepest)
      blocked = `op ${it.op.id} (${it.op.kind} by client ${it.op.client}) cannot take effect in state ${JSON.stringify(state)}`;
    if (stack.length === 0)
      return {
        result: "fail",
        message: `no linearization; the longest prefix (${deepest} ops) ends where ${blocked}`,
        steps,
      };
    const top = stack.pop()!;
    state = top.state;
    toggle(top.entry.item);
    if (its[top.entry.item]!.optional) optionalUsed--;
    unlift(top.entry);
    entry = top.entry.next;
  }
  return { result: "ok", steps };
}

/** A fixed pseudo-random 32-bit value for `n` (a murmur3-style finalizer): replays stay deterministic. */
function mix32(n: number): number {
  let x = Math.imul(n ^ 0x9e3779b9, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}
