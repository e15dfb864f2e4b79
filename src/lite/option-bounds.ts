/**
 * The settings of option-table.ts that bound what a client may hold of lite: time (slow and idle
 * clients, acks left unread, answers that cannot be sent), memory (the in-flight append budget)
 * and counts (connections, streams, read sessions). Declared as the table's others are (spread
 * into SETTINGS, in this order); docs/security.md says what each protects.
 */
import { ms, type Read, whole } from "./option-readers.js";

const bound = <T>(s: { env: string; unit?: string; default: T; shown?: string; read: Read<T>; doc: string }) => ({
  kind: "value" as const,
  ...s,
});
const count = (min: number) => whole(min, Number.MAX_SAFE_INTEGER, `a whole number, at least ${min}`);

export const BOUNDS = {
  headersMs: bound({
    env: "SVC_LITE_HEADERS_TIMEOUT_MS",
    unit: "ms",
    default: 30_000,
    read: ms(1),
    doc: "how long a connection may take to send its first bytes, then a whole HTTP/1.1 request head",
  }),
  idleMs: bound({
    env: "SVC_LITE_IDLE_TIMEOUT_MS",
    unit: "ms",
    default: 300_000,
    read: ms(1),
    doc: "how long an HTTP/2 connection may carry no frames either way before it is closed",
  }),
  bodyGraceMs: bound({
    env: "SVC_LITE_BODY_GRACE_MS",
    unit: "ms",
    default: 10_000,
    read: ms(1),
    doc: "how long a request body read whole may take before it must keep arriving at 8 KiB/s",
  }),
  answerFlushMs: bound({
    env: "SVC_LITE_ANSWER_FLUSH_MS",
    unit: "ms",
    default: 60_000,
    read: ms(1),
    doc: "how long a complete answer may wait to be sent before its stream (HTTP/2) or connection (HTTP/1.1) is cut",
  }),
  unsentAnswers: bound({
    env: "SVC_LITE_UNSENT_ANSWERS",
    default: 100,
    read: count(1),
    doc: "how many complete answers one connection may have waiting to be sent; a further one cuts the oldest",
  }),
  h2MaxStreams: bound({
    env: "SVC_LITE_STREAMS_PER_CONNECTION",
    default: 1000,
    read: count(1),
    doc: "how many streams an HTTP/2 connection may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS)",
  }),
  connectionsPerAddress: bound({
    env: "SVC_LITE_CONNECTIONS_PER_ADDRESS",
    default: 256,
    read: count(1),
    doc: "how many connections one client address may have open; a further one is closed at once",
  }),
  ackStallMs: bound({
    env: "SVC_LITE_ACK_STALL_MS",
    unit: "ms",
    default: 30_000,
    read: ms(1),
    doc: "how long an append session's acks may wait unread before the session is ended",
  }),
  heartbeatMs: bound({
    env: "SVC_LITE_HEARTBEAT_MS",
    unit: "ms",
    default: 15_000,
    read: whole(3, 15_000, "a whole number of milliseconds from 3 to 15000"),
    doc: "the longest a read session or SSE read waiting at the tail goes without a message: heartbeats come at random intervals from a third of it up to it",
  }),
  appendBudgetBytes: bound({
    env: "SVC_LITE_APPEND_BUDGET_BYTES",
    unit: "bytes",
    default: 128 << 20,
    shown: "128 MiB",
    read: whole(1, Number.MAX_SAFE_INTEGER, "a whole number of bytes, at least 1"),
    doc: "the in-flight append budget all append sessions share; each may hold an eighth of it, at most 16 MiB",
  }),
  readSessionsPerToken: bound({
    env: "SVC_LITE_READ_SESSIONS_PER_TOKEN",
    default: 10_000,
    read: count(1),
    doc: "how many read sessions (svc/proto and SSE) one bearer token may have open at once, on any connections",
  }),
  readSessionsPerConnection: bound({
    env: "SVC_LITE_READ_SESSIONS_PER_CONNECTION",
    default: 1000,
    read: count(1),
    doc: "how many read sessions one connection may have open at once",
  }),
};
