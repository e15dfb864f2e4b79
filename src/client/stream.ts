/**
 * One stream's data plane (B7–B9): check-tail; `append` and `readBatch`, one unary request
 * each; `appender`, the one way to append many inputs (appender.ts: backpressure, order,
 * session or unary); `read`, the one way to read (events over a session, SSE or unary reads,
 * resumed inside the client, with nothing repeated or skipped). JSON bodies use
 * `svc-format: base64` so that arbitrary bytes survive; protobuf and the session code load
 * lazily (management commands never load them).
 */
import { clientError, clientFail } from "../errors.js";
import { checkName } from "../rules/names.js";
import { checkBatch } from "../rules/records.js";
import type { AppendAck, AppendInput, ReadBatch, ReadEvent, ReadLimits, ReadStart, StreamPosition } from "../types.js";
import { appendAckFromJson, appendInputToJson, positionFromJson, readBatchFromJson } from "../wire/json.js";
import { TAIL_WENT_BACK_HEADER } from "../wire/lite-headers.js";
import { encodeReadQuery } from "../wire/read-query.js";
import type { AppendSessionOptions } from "./append-session.js";
import type { Appender, AppenderOptions, AppendLane } from "./appender.js";
import { badInput } from "./bad-record.js";
import type { Caller } from "./caller.js";
import { type BasinRoute, seg } from "./endpoints.js";
import type { ReadSessionOptions } from "./read-resume.js";
import type { OpenExchange } from "./session-frames.js";
import type { ClientTestFault } from "./test-fault.js";
import type { ReadOnce } from "./unary-read.js";

export type ReadTransport = "session" | "sse" | "unary";

/** Per-read options; retries and the outage notices come from the client's settings. */
export interface ReadOptions extends Omit<ReadSessionOptions, "start" | "limits"> {
  /** session (framed protobuf), sse, or unary (a loop of unary reads). @default "session" */
  transport?: ReadTransport;
}

/**
 * Per-appender options; compression, the ack idle bound and connect retries come from the
 * client's settings (caller.ts), and may be set here for this appender.
 */
export type StreamAppenderOptions = AppenderOptions &
  AppendSessionOptions & {
    /** @internal A deliberate bug, for checking the reliability checkers only (test-fault.ts); not in the published types. */
    testFault?: ClientTestFault;
  };

export type UnaryEncoding = "json" | "protobuf";

export interface UnaryOptions {
  /** @default "json" */
  encoding?: UnaryEncoding;
  /** Aborts the request (a long-poll no longer wanted): it fails `interrupted`. */
  signal?: AbortSignal;
}

export class StreamClient {
  /** @internal made by the client tree, not by its users */
  constructor(
    private readonly caller: Caller,
    private readonly route: BasinRoute,
    readonly name: string,
    readonly basin: string,
  ) {
    checkName("stream", name, clientFail("usage"));
  }

  private url(suffix: string): string {
    return `${this.route.base}/streams/${seg(this.name)}${suffix}`;
  }

  /** The tail; `wentBack` when svc lite reports the stream lost acknowledged records (a failover). */
  async checkTail(): Promise<TailReport> {
    const res = await this.caller.json<{ tail?: unknown }>({
      method: "GET",
      url: this.url("/records/tail"),
      headers: this.route.headers,
      idempotent: true,
    });
    if (!res.data || res.data.tail === undefined) throw clientError("protocol", "check-tail response has no `tail`");
    const tail = positionFromJson(res.data.tail, "tail");
    const wentBack = parseWentBack(res.headers[TAIL_WENT_BACK_HEADER]);
    return wentBack ? { ...tail, wentBack } : tail;
  }

  /** Unary append, judged here first as a session append is. Not idempotent: only failures with no side effects are retried. */
  async append(input: AppendInput, opts: UnaryOptions = {}): Promise<AppendAck> {
    checkBatch(input, badInput);
    return this.sendAppend(input, opts);
  }

  /** A unary append of an input already judged (the appender's unary lane). */
  private async sendAppend(input: AppendInput, opts: UnaryOptions = {}): Promise<AppendAck> {
    if (opts.encoding === "protobuf") {
      const proto = await import("../wire/proto.js");
      const res = await this.caller.raw({
        method: "POST",
        url: this.url("/records"),
        idempotent: false,
        body: proto.encodeAppendInput(input),
        headers: { ...this.route.headers, "content-type": "application/protobuf", accept: "application/protobuf" },
      });
      return proto.decodeAppendAck(res.body);
    }
    const res = await this.caller.json<unknown>({
      method: "POST",
      url: this.url("/records"),
      idempotent: false,
      body: appendInputToJson(input, "base64"),
      headers: { ...this.route.headers, "svc-format": "base64" },
    });
    return appendAckFromJson(res.data);
  }

  /** One unary read: at most 1000 records / 1 MiB per call. */
  async readBatch(start: ReadStart = {}, limits: ReadLimits = {}, opts: UnaryOptions = {}): Promise<ReadBatch> {
    const query = encodeReadQuery({ start, ...limits });
    const q = query ? `?${query}` : "";
    const signal = opts.signal ? { signal: opts.signal } : {};
    if (opts.encoding === "protobuf") {
      const proto = await import("../wire/proto.js");
      const res = await this.caller.raw({
        method: "GET",
        url: this.url(`/records${q}`),
        idempotent: true,
        headers: { ...this.route.headers, accept: "application/protobuf" },
        ...signal,
      });
      return proto.decodeReadBatch(res.body);
    }
    const res = await this.caller.json<unknown>({
      method: "GET",
      url: this.url(`/records${q}`),
      idempotent: true,
      headers: { ...this.route.headers, "svc-format": "base64" },
      ...signal,
    });
    return readBatchFromJson(res.data, "base64");
  }

  /**
   * The appender of this stream (appender.ts): `submit` checks each input, applies
   * backpressure and sends it over the transport chosen (session by default). The session
   * code and protobufjs load only when a session may be used.
   */
  async appender(opts: StreamAppenderOptions = {}): Promise<Appender> {
    const { Appender } = await import("./appender.js");
    const { UnaryAppends } = await import("./unary-appends.js");
    const { transport, maxInflightBytes, testFault: fault, ...sessionOpts } = opts;
    const own: AppenderOptions = {
      ...(transport ? { transport } : {}),
      ...(maxInflightBytes !== undefined ? { maxInflightBytes } : {}),
    };
    const unary = (): AppendLane => new UnaryAppends((input) => this.sendAppend(input));
    if (transport === "unary") return new Appender({ unary }, own);
    const { AppendSession } = await import("./append-session.js");
    const faults = fault && (await import("./faults.js"));
    const { compression, ackTimeoutMs, retries } = this.caller.policy;
    const session = (): AppendLane => {
      const open = this.sessionOpener(true);
      const o = { compression, ackTimeoutMs, retries, ...sessionOpts };
      return fault && faults ? faults.faultySession(fault, open, o) : new AppendSession(open, o);
    };
    return new Appender({ session, unary }, own);
  }

  /**
   * Reads `start`..`limits` as one sequence of events, whatever the transport: a framed read
   * session (default), SSE, or unary reads. Resumed inside the client after a cut, a retryable
   * error or the server's advice, with no record repeated or skipped; a follow read waits for
   * a server that went away. A batch that cannot be decrypted with the key given is read on
   * record by record, so every record before it is delivered (read-salvage.ts).
   */
  async *read(start: ReadStart = {}, limits: ReadLimits = {}, opts: ReadOptions = {}): AsyncGenerator<ReadEvent> {
    const { transport = "session", ...rest } = opts;
    const once = (s: ReadStart, l: ReadLimits): Promise<ReadBatch> =>
      this.readBatch(s, l, rest.signal ? { signal: rest.signal } : {});
    const { salvageDecryptable } = await import("./read-salvage.js");
    yield* salvageDecryptable(
      await this.events(transport, this.readOptions(start, limits, rest), once),
      once,
      start,
      limits,
    );
  }

  private async events(
    transport: ReadTransport,
    opts: ReadSessionOptions,
    once: ReadOnce,
  ): Promise<AsyncGenerator<ReadEvent>> {
    switch (transport) {
      case "session":
        return (await import("./read-session.js")).readSession(this.sessionOpener(true), opts);
      case "sse":
        return (await import("./sse-read.js")).sseReadSession(this.sessionOpener(false), opts);
      case "unary":
        return (await import("./unary-read.js")).unaryRead(once, opts);
    }
  }

  private readOptions(start: ReadStart, limits: ReadLimits, opts: Omit<ReadOptions, "transport">): ReadSessionOptions {
    const uri = `svc://${this.basin}/${this.name}`;
    return {
      retries: this.caller.policy.retries,
      onOutage: (reason) =>
        this.caller.notice(
          `${uri}: lost the server (${reason.message}); still following, reconnecting until it is back`,
        ),
      onRecovered: (next) =>
        this.caller.notice(`${uri}: reconnected${next === undefined ? "" : `, resuming at ${next}`}`),
      ...opts,
      start,
      limits,
    };
  }

  /** Session requests on this stream, through the client's one road (caller.ts). */
  private sessionOpener(framed: boolean): OpenExchange {
    return ({ method, query, duplex, headers }) =>
      this.caller.session({
        url: this.url("/records") + (query ? `?${query}` : ""),
        method,
        duplex,
        headers: { ...this.route.headers, ...(framed ? { "content-type": "svc/proto" } : {}), ...headers },
      });
  }
}

/** check-tail's answer: the tail, and what svc lite reports of a loss (`svc-lite-tail-went-back`). */
export interface TailReport extends StreamPosition {
  wentBack?: { from: number; to: number };
}

function parseWentBack(value: string | undefined): { from: number; to: number } | undefined {
  const m = value === undefined ? null : /^from=(\d+), to=(\d+)$/.exec(value.trim());
  if (!m) return undefined;
  const [from, to] = [Number(m[1]), Number(m[2])];
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to))
    throw clientError("protocol", `${TAIL_WENT_BACK_HEADER} names a sequence number beyond 2^53: ${value}`);
  return { from, to };
}
