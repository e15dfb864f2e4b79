/**
 * Deliberate bugs for checking the reliability checkers (test-fault.ts says which one, and
 * only when the test-fault variables are set). Each is a wrapper around a real part (the
 * log, the sequencing rules, a stream), so the core has no branch for any of them.
 */
import type { AppendAck } from "../../types.js";
import type { LocalLog } from "../storage/seams.js";
import type { TestFault } from "../test-fault.js";
import { LiveBatch, type LiveSubscriber } from "./live-fanout.js";
import type { LiveStream } from "./live-stream.js";
import { commandsOf, SEQUENCING, type Sequencing } from "./sequencing.js";

/** The log with `ack-before-sync`, `drop-last` or `tail-short`. */
export function faultyLog(log: LocalLog, fault: TestFault): LocalLog {
  const wrapped: LocalLog = Object.create(log) as LocalLog;
  if (fault === "ack-before-sync") {
    // Resolves before the write is durable; the write still happens.
    wrapped.appendBatch = (id, batch, state) => {
      log.appendBatch(id, batch, state).catch(() => undefined);
      return Promise.resolve();
    };
  } else if (fault === "drop-last") {
    wrapped.appendBatch = (id, batch, state) =>
      log.appendBatch(id, batch.records.length > 1 ? { ...batch, records: batch.records.slice(0, -1) } : batch, state);
  } else if (fault === "tail-short") {
    // A tail loaded one record short, past recovery's own repair (which reads the last batch).
    wrapped.getState = (id) => {
      const s = log.getState(id);
      return s && s.nextSeq > 0 ? { ...s, nextSeq: s.nextSeq - 1 } : s;
    };
    wrapped.lastBatch = () => undefined;
  }
  return wrapped;
}

/** The rules with `ignore-match`, `ignore-fence` or `trim-past-own`. */
export function faultySequencing(fault: TestFault): Sequencing {
  switch (fault) {
    case "ignore-match":
      return {
        ...SEQUENCING,
        checkConditions: (s, input) => SEQUENCING.checkConditions(s, { ...input, matchSeqNum: undefined }),
      };
    case "ignore-fence":
      return {
        ...SEQUENCING,
        checkConditions: (s, input) => SEQUENCING.checkConditions(s, { ...input, fencingToken: undefined }),
      };
    case "trim-past-own":
      return {
        ...SEQUENCING,
        sequence(s, config, input, now) {
          const out = SEQUENCING.sequence(s, config, input, now);
          for (const c of commandsOf(input))
            if (c.trim !== undefined && c.trim > out.state.trimPoint) out.state.trimPoint = c.trim;
          return out;
        },
      };
    default:
      return SEQUENCING;
  }
}

/** The stream with `skip-seq`, `reorder` (its acks) or `read-skip` (its live batches). */
export function faultyStream<S extends LiveStream>(stream: S, fault: TestFault): S {
  if (fault === "skip-seq" || fault === "reorder") {
    const submit = stream.submit.bind(stream);
    const acks = fault === "skip-seq" ? skipSeq : reorderer();
    stream.submit = (input, chain) => {
      const r = submit(input, chain);
      return { accepted: r.accepted, ack: acks(r.ack) };
    };
    stream.append = (input) => stream.submit(input).ack;
  } else if (fault === "read-skip") {
    // The first record of a live batch of several that starts at an odd seq num is not delivered.
    const follow = stream.follow.bind(stream);
    const unfollow = stream.unfollow.bind(stream);
    const wrapped = new WeakMap<LiveSubscriber, LiveSubscriber>();
    stream.follow = (sub) => {
      const w: LiveSubscriber = {
        get position() {
          return sub.position;
        },
        get shape() {
          return sub.shape;
        },
        evicted: (why) => sub.evicted(why),
        offer: (b) =>
          sub.offer(b.records.length > 1 && b.firstSeq % 2 === 1 ? new LiveBatch(b.records.slice(1), b.tail) : b),
      };
      wrapped.set(sub, w);
      return follow(w);
    };
    stream.unfollow = (sub) => unfollow(wrapped.get(sub) ?? sub);
  }
  return stream;
}

/** Acks starting at n % 50 ≥ 45 report their range one position late. */
function skipSeq(ack: Promise<AppendAck>): Promise<AppendAck> {
  return ack.then((a) =>
    a.start.seqNum % 50 >= 45
      ? { ...a, start: { ...a.start, seqNum: a.start.seqNum + 1 }, end: { ...a.end, seqNum: a.end.seqNum + 1 } }
      : a,
  );
}

/** An ack starting at n % 10 = 3 is held back (at most 100 ms) and swapped with the next one. */
function reorderer(): (ack: Promise<AppendAck>) => Promise<AppendAck> {
  let held: { ack: AppendAck; resolve: (a: AppendAck) => void; timer: NodeJS.Timeout } | undefined;
  return (ack) =>
    new Promise<AppendAck>((resolve, reject) => {
      ack.then((a) => {
        if (!held && a.start.seqNum % 10 === 3) {
          const h = {
            ack: a,
            resolve,
            timer: setTimeout(() => {
              if (held === h) held = undefined;
              resolve(a);
            }, 100),
          };
          held = h;
          return;
        }
        const h = held;
        if (!h) return resolve(a);
        held = undefined;
        clearTimeout(h.timer);
        h.resolve(a);
        resolve(h.ack);
      }, reject);
    });
}
