/**
 * A regular session frame around one protobuf message, with compression (protocol.md §6.2,
 * §6.4), for both sides: the client's inputs and lite's acks and read batches. A message is
 * compressed only when the session negotiated an algorithm and it is at least 1 KiB; the
 * CC bits say which. framing.ts draws the bytes; compression.ts caps the inflation.
 */
import { compress, decompress, shouldCompress } from "./compression.js";
import { type Compression, encodeFrame, encodeFrameInPlace, type Frame } from "./framing.js";

/** Frames one message, compressing it when negotiated and worth it. */
export async function frameMessage(
  message: Uint8Array,
  compression: Compression,
  opts: { reconnect?: boolean } = {},
): Promise<Uint8Array> {
  const reconnect = opts.reconnect === true;
  if (compression === "none" || !shouldCompress(message.length)) return encodeFrame(message, { reconnect });
  return encodeFrame(await compress(message, compression), { compression, reconnect });
}

/**
 * Frames the message `encode` writes after `reserve` free bytes: uncompressed, the frame head
 * takes those bytes and the message is never copied; compressed, as frameMessage.
 */
export async function frameEncoded(
  encode: (reserve: number) => Uint8Array,
  compression: Compression,
  opts: { reconnect?: boolean } = {},
): Promise<Uint8Array> {
  if (compression === "none") return encodeFrameInPlace(encode, opts);
  return frameMessage(encode(0), compression, opts);
}

/** The message a regular frame carries, decompressed per its CC bits (capped; throws `too_large` or `bad_frame`). */
export function messagePayload(frame: Frame): Promise<Uint8Array> | Uint8Array {
  return frame.compression === "none" ? frame.payload : decompress(frame.payload, frame.compression);
}
