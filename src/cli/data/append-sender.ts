/**
 * How batches reach the service: an append session (default; pipelined, acks in order, bounded
 * unacknowledged bytes) or unary appends one at a time (`--transport unary`). Either way a
 * batch after a failed one is never sent, and nothing is ever re-sent by this layer.
 */
import type { StreamClient } from "../../client/stream.js";
import type { AppendSession } from "../../client/append-session.js";
import { SvcError } from "../../errors.js";
import type { AppendAck, AppendInput } from "../../types.js";

export interface Sender {
  submit(input: AppendInput): Promise<AppendAck>;
  /** Waits for every submitted batch's ack. */
  close(): Promise<void>;
  /** Abandons what is in flight (its outcome stays unknown). */
  abort(): void;
}

export type AppendTransport = "session" | "unary" | "auto";

export interface SenderOptions {
  transport: AppendTransport;
  /**
   * The session was not asked for by name (`--transport` unset, no `--ack-timeout`): an input
   * that is one small batch (≤ 64 KiB), ended before it was sent, goes as one unary append,
   * which a one-shot process sets up in a fraction of a session's time (HTTP/1.1, no framing).
   */
  unaryForOneBatch?: boolean;
  maxInflightBytes: number;
  /** Idle bound on acks while batches are in flight (default: the client's --timeout). */
  ackTimeoutMs?: number;
  compression?: "none" | "gzip" | "zstd";
  onReconnect: (reason: string) => void;
}

/** The largest single batch `unaryForOneBatch` sends unary (JSON, base64 bodies). */
export const ONE_BATCH_UNARY_MAX_BYTES = 64 * 1024;

/** `first` is the first batch to send: when it is also the last, it may pick the transport. */
export async function openSender(stream: StreamClient, o: SenderOptions, first?: { last?: boolean; bytes: number }): Promise<Sender> {
  if (o.transport === "unary") return new UnarySender(stream);
  if (o.unaryForOneBatch && first?.last && first.bytes <= ONE_BATCH_UNARY_MAX_BYTES) return new UnarySender(stream);
  const session: AppendSession = await stream.appendSession({
    maxInflightBytes: o.maxInflightBytes,
    ...(o.ackTimeoutMs !== undefined ? { ackTimeoutMs: o.ackTimeoutMs } : {}),
    ...(o.compression ? { compression: o.compression } : {}),
    onReconnect: o.onReconnect,
  });
  const direct: Sender = {
    submit: (input) => session.submit(input),
    close: () => session.close(),
    abort: () => session.abort("interrupted"),
  };
  return o.transport === "auto" ? new FallbackSender(direct, new UnarySender(stream)) : direct;
}

/**
 * `--transport auto`: the session, unless the server does not implement sessions (501 before
 * anything was sent); then every batch goes, in order, as a unary append instead.
 */
class FallbackSender implements Sender {
  private fallen = false;

  constructor(private readonly session: Sender, private readonly unary: Sender) {}

  submit(input: AppendInput): Promise<AppendAck> {
    if (this.fallen) return this.unary.submit(input);
    return this.session.submit(input).catch((e: unknown) => {
      if (!(e instanceof SvcError) || e.code !== "not_implemented") throw e;
      this.fallen = true;
      return this.unary.submit(input);
    });
  }

  async close(): Promise<void> {
    if (!this.fallen) await this.session.close().catch((e: unknown) => {
      if (!(e instanceof SvcError) || e.code !== "not_implemented") throw e;
    });
    await this.unary.close();
  }

  abort(): void {
    this.session.abort();
    this.unary.abort();
  }
}

class UnarySender implements Sender {
  private chain: Promise<unknown> = Promise.resolve();
  private failed: SvcError | undefined;
  private aborted = false;

  constructor(private readonly stream: StreamClient) {}

  submit(input: AppendInput): Promise<AppendAck> {
    const run = this.chain.then(async () => {
      if (this.failed || this.aborted) {
        throw new SvcError({ code: "not_applied", message: "not appended because an earlier batch failed", origin: "client", retryable: true, sideEffects: false });
      }
      try {
        return await this.stream.append(input);
      } catch (e) {
        this.failed ??= e instanceof SvcError ? e : new SvcError({ code: "network", message: String(e), origin: "client", cause: e });
        throw e;
      }
    });
    this.chain = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    await this.chain;
  }

  abort(): void {
    this.aborted = true;
  }
}
