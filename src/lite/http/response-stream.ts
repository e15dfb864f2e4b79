/**
 * The response of an exchange as a stream (SessionIO), for append and read sessions and SSE once
 * the head is sent (Exchange.startStream): writes in order with the connection's backpressure,
 * close listeners, and a cut-off that the client sees as a lost connection. The same for
 * HTTP/1.1 and HTTP/2, whose compatibility response does not count what waits on its stream.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { type Http2ServerRequest, type Http2ServerResponse, constants as h2constants } from "node:http2";
import { LIVE_SLACK_BYTES, LIVE_SLACK_WRITES, type SessionIO } from "../session/io.js";

export type Req = IncomingMessage | Http2ServerRequest;
export type Res = ServerResponse | Http2ServerResponse;

export abstract class ResponseStream implements SessionIO {
  constructor(
    readonly req: Req,
    readonly res: Res,
  ) {}

  private ioClosed = false;
  private readonly closeListeners = new Set<() => void>();

  /** The request body as it arrives. */
  get chunks(): AsyncIterable<Uint8Array> {
    return this.req as AsyncIterable<Uint8Array>;
  }

  get closed(): boolean {
    return this.ioClosed;
  }

  protected markClosed(): void {
    if (this.ioClosed) return;
    this.ioClosed = true;
    for (const cb of [...this.closeListeners]) cb();
    this.closeListeners.clear();
  }

  onClose(cb: () => void): () => void {
    if (this.ioClosed) {
      cb();
      return () => undefined;
    }
    this.closeListeners.add(cb);
    return () => this.closeListeners.delete(cb);
  }

  write(bytes: Uint8Array): Promise<void> {
    return this.writev([bytes]);
  }

  /** Writes pieces in order; resolves when the connection can take more. */
  writev(pieces: readonly Uint8Array[]): Promise<void> {
    if (this.ioClosed) return Promise.resolve();
    const res = this.res as ServerResponse;
    let ok = true;
    for (const p of pieces) ok = res.write(p);
    return ok ? Promise.resolve() : this.drained();
  }

  writeNow(pieces: readonly Uint8Array[]): boolean {
    if (this.ioClosed) return true;
    // HTTP/2: the stream itself (the head is sent; the compatibility response adds only checks).
    const out: NodeJS.WritableStream & { cork(): void; uncork(): void; writableLength: number } =
      (this.res as Http2ServerResponse).stream ?? (this.res as ServerResponse);
    this.liveUnsent++;
    // One write of several pieces (no copy: each goes out as it is, shared with other sessions).
    if (pieces.length > 1) out.cork();
    for (let i = 0; i < pieces.length; i++) out.write(pieces[i]!, i === pieces.length - 1 ? this.liveSent : undefined);
    if (pieces.length > 1) out.uncork();
    // The HTTP/2 compatibility response does not count what waits; its stream does.
    const waiting = out.writableLength;
    return waiting <= LIVE_SLACK_BYTES && this.liveUnsent <= LIVE_SLACK_WRITES;
  }

  /** Live writes not yet sent, and who waits for them all to be. */
  private liveUnsent = 0;
  private liveWaiters: (() => void)[] = [];
  private readonly liveSent = (): void => {
    if (--this.liveUnsent === 0) for (const w of this.liveWaiters.splice(0)) w();
  };

  drained(): Promise<void> {
    const res = this.res as ServerResponse;
    // The HTTP/2 compatibility response does not say; its stream does.
    const stream = (this.res as Http2ServerResponse).stream as { writableNeedDrain?: boolean } | undefined;
    const ready = (): boolean =>
      this.ioClosed || (!(res.writableNeedDrain ?? stream?.writableNeedDrain) && this.liveUnsent === 0);
    if (ready()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = (): void => {
        if (!ready()) return;
        res.off("drain", check);
        res.off("close", check);
        resolve();
      };
      res.on("drain", check);
      res.on("close", check);
      this.liveWaiters.push(check);
    });
  }

  end(): void {
    if (this.ioClosed || this.res.writableEnded) return;
    this.res.end();
    this.ended();
  }

  /** Told when the response's end is written (it may still wait to be sent). */
  protected ended(): void {}

  /** Cuts the response off (no end: the client sees a lost connection). */
  abort(): void {
    if (this.ioClosed) return;
    const stream = (this.res as Http2ServerResponse).stream as { close?: (code: number) => void } | undefined;
    if (stream?.close)
      stream.close(h2constants.NGHTTP2_INTERNAL_ERROR); // this stream only
    else (this.res as ServerResponse).destroy();
  }
}

/**
 * HTTP/2: ends a stream whose request body is still arriving, once the answer is out. On a
 * timer, not from the stream's "finish" (nor setImmediate): a RST_STREAM submitted while the
 * session is still writing, as it is then, is never sent when the answer waits for the
 * client's window (Node 20), and the stream would stay open.
 */
export function resetH2(res: Http2ServerResponse): void {
  setTimeout(() => {
    if (!res.stream.destroyed) res.stream.close(h2constants.NGHTTP2_NO_ERROR);
  }, 0);
}
