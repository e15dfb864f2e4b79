/**
 * Frames over a session exchange, for the client side (protocol.md §6.2–6.4): decoding the
 * server's frames (regular messages decompressed per their CC bits, terminal frames turned
 * into SvcErrors) and encoding our own inputs (compressed only at or above 1 KiB).
 */
import { SvcError, clientError, errorFromResponse } from "../errors.js";
import type { SessionExchange } from "../transport/session.js";
import { FrameParser, decodeTerminal, encodeFrame, type Compression } from "../wire/framing.js";
import { compress, decompress, shouldCompress } from "../wire/compression.js";

export type ServerMessage =
  | { kind: "message"; payload: Uint8Array; reconnect: boolean }
  | { kind: "terminal"; error: SvcError };

/** Yields the server's messages until the response ends. A cut-off frame is a network error. */
export async function* serverMessages(exchange: SessionExchange): AsyncGenerator<ServerMessage> {
  const parser = new FrameParser();
  for await (const chunk of exchange.body) {
    parser.push(chunk);
    for (let frame = nextFrame(parser); frame; frame = nextFrame(parser)) {
      if (frame.terminal) {
        const { status, body } = decodeTerminal(frame.payload);
        yield { kind: "terminal", error: errorFromResponse(status, body) };
        return;
      }
      const payload = frame.compression === "none" ? frame.payload : await decompress(frame.payload, frame.compression);
      yield { kind: "message", payload, reconnect: frame.reconnect };
    }
  }
  if (parser.buffered > 0) throw clientError("network", "the session ended in the middle of a frame");
}

function nextFrame(parser: FrameParser): ReturnType<FrameParser["next"]> {
  try {
    return parser.next();
  } catch (e) {
    throw clientError("protocol", `malformed frame from the server: ${(e as Error).message}`, e);
  }
}

/** Frames one protobuf message, compressing it when negotiated and worth it. */
export async function frameMessage(message: Uint8Array, compression: Compression): Promise<Uint8Array> {
  if (compression === "none" || !shouldCompress(message.length)) return encodeFrame(message);
  return encodeFrame(await compress(message, compression), { compression });
}

/** Turns a non-200 session response into the error its JSON body describes. */
export async function responseError(exchange: SessionExchange): Promise<SvcError> {
  const text = await exchange.text().catch(() => "");
  let body: unknown = {};
  try {
    body = text === "" ? {} : JSON.parse(text);
  } catch {
    body = { message: text.slice(0, 200) };
  }
  const retryAfter = Number(exchange.headers["retry-after-ms"]);
  return errorFromResponse(exchange.status, body, Number.isFinite(retryAfter) ? retryAfter : undefined);
}
