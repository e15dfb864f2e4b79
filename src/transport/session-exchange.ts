/**
 * One full-duplex exchange on an HTTP/2 stream of a SessionPool (session.ts): waiting for the
 * response head within a deadline, reading an error answer's body within MAX_RESPONSE_BYTES,
 * and, once the answer is 2xx, the SessionExchange its caller reads and writes: the body's end
 * counts as clean only on the server's END_STREAM; writes keep the stream's backpressure.
 */
import http2 from "node:http2";
import { clientError, SvcError } from "../errors.js";
import { networkError } from "./network-error.js";
import { responseTooLarge } from "./response-error.js";
import { MAX_RESPONSE_BYTES, MAX_TIMER_MS } from "./types.js";

/** An established exchange: the response status is 2xx, data flows both ways. */
export interface SessionExchange {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Response body chunks; ends when the server ends the response. Throws SvcError. */
  body: AsyncIterable<Uint8Array>;
  /** Writes request bytes; resolves when the transport can take more (back-pressure). */
  write(chunk: Uint8Array): Promise<void>;
  /** Half-closes the request body. */
  end(): void;
  /** Abandons the exchange (RST_STREAM); pending reads end with an error. */
  close(): void;
  /** Abandons the whole connection (it went silent): no later exchange will reuse it. */
  abandon(): void;
}

export function waitForResponse(
  stream: http2.ClientHttp2Stream,
  url: string,
  waitMs: number,
  timeoutMs: number,
): Promise<http2.IncomingHttpHeaders> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => {
        stream.close(http2.constants.NGHTTP2_CANCEL);
        reject(clientError("client_timeout", `no response from ${new URL(url).origin} within ${timeoutMs} ms`));
      },
      Math.min(MAX_TIMER_MS, waitMs),
    );
    stream.once("response", (headers) => {
      clearTimeout(timer);
      resolve(headers);
    });
    stream.once("error", (err) => {
      clearTimeout(timer);
      reject(networkError(err, url, false, timeoutMs));
    });
    stream.once("close", () => {
      clearTimeout(timer);
      reject(clientError("network", "the stream closed before a response arrived"));
    });
  });
}

/** An error response's body; past MAX_RESPONSE_BYTES the stream is cancelled and `too_large` thrown. */
export async function readAll(stream: http2.ClientHttp2Stream, url: string): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of stream) {
    size += (c as Buffer).length;
    if (size > MAX_RESPONSE_BYTES) {
      stream.close(http2.constants.NGHTTP2_CANCEL);
      throw responseTooLarge(url);
    }
    chunks.push(c as Buffer);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

/** The exchange on a stream whose 2xx response head has arrived; `drop` abandons its connection. */
export function exchange(
  stream: http2.ClientHttp2Stream,
  headers: http2.IncomingHttpHeaders,
  url: string,
  drop: () => void,
): SessionExchange {
  let streamError: SvcError | undefined;
  const lost = (e: unknown): SvcError => networkError(e, url, false, 0);
  stream.on("error", (err) => {
    streamError = lost(err);
  });
  async function* body(): AsyncGenerator<Uint8Array> {
    try {
      for await (const chunk of stream) yield chunk as Uint8Array;
    } catch (e) {
      throw streamError ?? lost(e);
    }
    if (streamError) throw streamError;
    if (stream.rstCode !== undefined && stream.rstCode !== http2.constants.NGHTTP2_NO_ERROR) {
      throw clientError("network", `the server reset the session (HTTP/2 error ${stream.rstCode})`);
    }
    // Only END_STREAM from the server is a clean end; a destroyed stream can stop iterating
    // quietly, which must not look like a completed session.
    if (!stream.readableEnded)
      throw clientError("network", "the session's connection closed before the response ended");
  }
  return {
    status: Number(headers[":status"] ?? 0),
    headers: headers as Record<string, string | string[] | undefined>,
    body: body(),
    write(chunk) {
      if (streamError) return Promise.reject(streamError);
      if (stream.destroyed || stream.writableEnded)
        return Promise.reject(clientError("network", "the session is closed"));
      return new Promise((resolve, reject) => {
        const ok = stream.write(chunk, (err) => {
          if (err && !ok) reject(lost(err));
        });
        if (ok) resolve();
        else {
          const onDrain = (): void => {
            cleanup();
            resolve();
          };
          const onClose = (): void => {
            cleanup();
            reject(streamError ?? clientError("network", "the session closed while writing"));
          };
          const cleanup = (): void => {
            stream.off("drain", onDrain);
            stream.off("close", onClose);
          };
          stream.once("drain", onDrain);
          stream.once("close", onClose);
        }
      });
    },
    end() {
      if (!stream.destroyed && !stream.writableEnded) stream.end();
    },
    close() {
      if (!stream.destroyed) stream.close(http2.constants.NGHTTP2_CANCEL);
    },
    abandon() {
      drop();
    },
  };
}
