/**
 * The server's frames over a session exchange, for the client side (protocol.md §6.2–6.4):
 * regular messages decompressed per their CC bits, terminal frames turned into SvcErrors.
 * Our own frames are made by wire/message-frame.ts, the same code lite uses for its own.
 */
import { clientError, errorFromResponse, SvcError } from "../errors.js";
import type { SessionExchange } from "../transport/session-exchange.js";
import { decodeTerminal, FrameParser } from "../wire/framing.js";
import { messagePayload } from "../wire/message-frame.js";

type ServerMessage =
  | { kind: "message"; payload: Uint8Array; reconnect: boolean }
  | { kind: "terminal"; error: SvcError };

/** Yields the server's messages until the response ends. A cut-off frame is a network error. */
export async function* serverMessages(exchange: Pick<SessionExchange, "body">): AsyncGenerator<ServerMessage> {
  const parser = new FrameParser();
  for await (const chunk of exchange.body) {
    parser.push(chunk);
    for (let frame = nextFrame(parser); frame; frame = nextFrame(parser)) {
      if (frame.terminal) {
        const { status, body } = decodeTerminal(frame.payload);
        yield { kind: "terminal", error: errorFromResponse(status, body) };
        return;
      }
      yield { kind: "message", payload: await messagePayload(frame), reconnect: frame.reconnect };
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

/**
 * Opens one session exchange on this stream through the client's one road (caller.ts);
 * resolves only with a 2xx response, rejects with the SvcError for anything else.
 */
export type OpenExchange = (req: {
  method: "GET" | "POST";
  query?: string;
  duplex: boolean;
  headers?: Record<string, string>;
}) => Promise<SessionExchange>;
