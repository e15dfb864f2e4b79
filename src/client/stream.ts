/**
 * One stream's data plane, unary calls only (B7–B9): check-tail, append, read.
 * JSON bodies use `svc-format: base64` so that arbitrary bytes survive; protobuf is optional
 * and loaded lazily (management commands never load protobufjs).
 */
import { clientError, clientFail } from "../errors.js";
import type { AppendAck, AppendInput, ReadBatch, ReadLimits, ReadStart, StreamPosition } from "../types.js";
import { appendAckFromJson, appendInputToJson, positionFromJson, readBatchFromJson } from "../wire/json.js";
import type { Caller } from "./caller.js";
import { query, seg, type BasinRoute } from "./endpoints.js";
import { checkName } from "../rules/names.js";
import { checkAppendInput } from "../rules/records.js";
import type { AppendSession, AppendSessionOptions } from "./append-session.js";
import type { ReadEvent, ReadSessionOptions as FullReadOptions } from "./read-session.js";
import type { OpenExchange } from "./session-frames.js";

/** Per-read options; retries and the outage notices come from the client's settings. */
export type ReadSessionOptions = Omit<FullReadOptions, "start" | "limits">;

export type UnaryEncoding = "json" | "protobuf";

export interface UnaryOptions {
  encoding?: UnaryEncoding;
}

export class StreamClient {
  constructor(private readonly caller: Caller, private readonly route: BasinRoute, readonly name: string, readonly basin: string) {
    checkName("stream", name, clientFail("usage"));
  }

  private url(suffix: string): string {
    return `${this.route.base}/streams/${seg(this.name)}${suffix}`;
  }

  async checkTail(): Promise<StreamPosition> {
    const res = await this.caller.json<{ tail?: unknown }>({ method: "GET", url: this.url("/records/tail"), headers: this.route.headers, idempotent: true });
    if (!res.data || res.data.tail === undefined) throw clientError("protocol", "check-tail response has no `tail`");
    return positionFromJson(res.data.tail, "tail");
  }

  /** Unary append, judged here first as a session append is. Not idempotent: only failures with no side effects are retried. */
  async append(input: AppendInput, opts: UnaryOptions = {}): Promise<AppendAck> {
    checkAppendInput(input, clientFail("bad_input"));
    if (opts.encoding === "protobuf") {
      const proto = await import("../wire/proto.js");
      const res = await this.caller.raw({
        method: "POST", url: this.url("/records"), idempotent: false, body: proto.encodeAppendInput(input),
        headers: { ...this.route.headers, "content-type": "application/protobuf", accept: "application/protobuf" },
      });
      return proto.decodeAppendAck(res.body);
    }
    const res = await this.caller.json<unknown>({
      method: "POST", url: this.url("/records"), idempotent: false, body: appendInputToJson(input, "base64"),
      headers: { ...this.route.headers, "svc-format": "base64" },
    });
    return appendAckFromJson(res.data);
  }

  /** Unary read: at most 1000 records / 1 MiB per call. */
  async read(start: ReadStart = {}, limits: ReadLimits = {}, opts: UnaryOptions = {}): Promise<ReadBatch> {
    const s = start as { seqNum?: number; timestamp?: number; tailOffset?: number };
    const q = query({
      seq_num: s.seqNum, timestamp: s.timestamp, tail_offset: s.tailOffset,
      count: limits.count, bytes: limits.bytes, until: limits.until, wait: limits.wait, clamp: limits.clamp,
    });
    if (opts.encoding === "protobuf") {
      const proto = await import("../wire/proto.js");
      const res = await this.caller.raw({
        method: "GET", url: this.url(`/records${q}`), idempotent: true,
        headers: { ...this.route.headers, accept: "application/protobuf" },
      });
      return proto.decodeReadBatch(res.body);
    }
    const res = await this.caller.json<unknown>({
      method: "GET", url: this.url(`/records${q}`), idempotent: true, headers: { ...this.route.headers, "svc-format": "base64" },
    });
    return readBatchFromJson(res.data, "base64");
  }

  /**
   * An append session over HTTP/2 (pipelined, acks in order; see append-session.ts), with the
   * client's timeout as the ack idle bound and its retries for connecting.
   * The session code and protobufjs load only here, never for management commands.
   */
  async appendSession(opts: AppendSessionOptions = {}): Promise<AppendSession> {
    const { AppendSession } = await import("./append-session.js");
    const { compression, ackTimeoutMs, retries } = this.caller.policy;
    return new AppendSession(this.sessionOpener(true), { compression, ackTimeoutMs, retries, ...opts });
  }

  /** A read session that resumes across disconnects with no duplicate or gap (read-session.ts). */
  async *readSession(start: ReadStart = {}, limits: ReadLimits = {}, opts: ReadSessionOptions = {}): AsyncGenerator<ReadEvent> {
    const { readSession } = await import("./read-session.js");
    yield* readSession(this.sessionOpener(true), this.readOptions(start, limits, opts));
  }

  /** The same read over SSE (protocol.md §6.9), resumed with Last-Event-ID. */
  async *sseReadSession(start: ReadStart = {}, limits: ReadLimits = {}, opts: ReadSessionOptions = {}): AsyncGenerator<ReadEvent> {
    const { sseReadSession } = await import("./sse-read.js");
    yield* sseReadSession(this.sessionOpener(false), this.readOptions(start, limits, opts));
  }

  private readOptions(start: ReadStart, limits: ReadLimits, opts: ReadSessionOptions): FullReadOptions {
    const uri = `svc://${this.basin}/${this.name}`;
    return {
      retries: this.caller.policy.retries,
      onOutage: (reason) => this.caller.notice(`${uri}: lost the server (${reason.message}); still following, reconnecting until it is back`),
      onRecovered: (next) => this.caller.notice(`${uri}: reconnected${next === undefined ? "" : `, resuming at ${next}`}`),
      ...opts, start, limits,
    };
  }

  /** Session requests on this stream, through the client's one road (caller.ts). */
  private sessionOpener(framed: boolean): OpenExchange {
    return ({ method, query, duplex, headers }) => this.caller.session({
      url: this.url("/records") + (query ? `?${query}` : ""),
      method,
      duplex,
      headers: { ...this.route.headers, ...(framed ? { "content-type": "svc/proto" } : {}), ...headers },
    });
  }
}
