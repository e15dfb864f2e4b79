/**
 * A scripted session exchange for client unit tests: the test plays the server, reading the
 * frames the client wrote and pushing response bytes (or a cut) whenever it likes.
 */
import { responseError } from "../../src/transport/response-error.js";
import type { SessionExchange } from "../../src/transport/session-exchange.js";
import type { AppendAck, AppendInput, ReadBatch } from "../../src/types.js";
import { encodeFrame, encodeTerminalFrame, FrameParser } from "../../src/wire/framing.js";
import { decodeAppendInput, encodeAppendAck, encodeReadBatch } from "../../src/wire/proto.js";

export class FakeExchange implements SessionExchange {
  status: number;
  headers: Record<string, string | string[] | undefined> = {};
  readonly inputs: AppendInput[] = [];
  ended = false;
  closed = false;
  private readonly parser = new FrameParser();
  private readonly queue: (Uint8Array | Error | null)[] = [];
  private wake: (() => void) | undefined;
  private inputWaiters: (() => void)[] = [];

  constructor(
    status = 200,
    private readonly errorBody = "",
  ) {
    this.status = status;
  }

  get body(): AsyncIterable<Uint8Array> {
    const self = this;
    return {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          while (self.queue.length === 0) await new Promise<void>((r) => (self.wake = r));
          const item = self.queue.shift()!;
          if (item === null) return;
          if (item instanceof Error) throw item;
          yield item;
        }
      },
    };
  }

  async write(chunk: Uint8Array): Promise<void> {
    if (this.closed) throw new Error("closed");
    this.parser.push(chunk);
    for (let f = this.parser.next(); f; f = this.parser.next()) this.inputs.push(decodeAppendInput(f.payload));
    for (const w of this.inputWaiters.splice(0)) w();
  }

  end(): void {
    this.ended = true;
  }
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.push(new Error("stream cancelled"));
  }
  /** What the road (transport/session.ts) does with a response: 2xx opens, anything else is its SvcError. */
  opened(): FakeExchange {
    if (this.status >= 200 && this.status < 300) return this;
    throw responseError({ status: this.status, headers: this.headers, body: new TextEncoder().encode(this.errorBody) });
  }
  abandon(): void {
    this.close();
  }

  /** Resolves once the client has written at least `n` inputs. */
  async waitInputs(n: number): Promise<void> {
    while (this.inputs.length < n) await new Promise<void>((r) => this.inputWaiters.push(r));
  }

  ack(ack: AppendAck, reconnect = false): void {
    this.push(encodeFrame(encodeAppendAck(ack), { reconnect }));
  }
  batch(batch: ReadBatch, reconnect = false): void {
    this.push(encodeFrame(encodeReadBatch(batch), { reconnect }));
  }
  terminal(status: number, body: unknown): void {
    this.push(encodeTerminalFrame(status, body));
    this.finish();
  }
  raw(bytes: Uint8Array): void {
    this.push(bytes);
  }
  finish(): void {
    this.push(null);
  }
  cut(): void {
    this.push(new Error("connection reset"));
  }

  private push(item: Uint8Array | Error | null): void {
    this.queue.push(item);
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }
}

export function pos(seqNum: number, timestamp = 1000): { seqNum: number; timestamp: number } {
  return { seqNum, timestamp };
}
