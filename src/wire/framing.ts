/**
 * Session frames (protocol.md §6.2, §6.3):
 *
 *   +----------------+-----------+---------------------------------------------+
 *   | length (3 B)   | flags (1B)| payload (length - 1 bytes)                  |
 *   +----------------+-----------+---------------------------------------------+
 *   length = 1 + payload length, big-endian, 1 ..= 2 MiB (2,097,152)
 *
 *   flags = [T][C C][A][R R R R]
 *     T    0x80  terminal: the stream ends after this frame
 *     CC   0x60  payload compression: 00 none, 01 zstd, 10 gzip, 11 invalid
 *     A    0x10  reconnect advised (server to client, regular frames only)
 *     RRRR 0x0F  reserved: written as 0, ignored on read
 *
 *   regular payload  : one protobuf message (compressed when CC != 00)
 *   terminal payload : 2-byte big-endian HTTP status + UTF-8 JSON error body
 *
 * Framing never compresses: callers compress the payload and say so in `compression`.
 */
import { SvcError } from "../errors.js";
import { LIMITS } from "../types.js";

export type Compression = "none" | "zstd" | "gzip";

const FLAG_TERMINAL = 0x80;
const FLAG_RECONNECT = 0x10;
const COMPRESSION_MASK = 0x60;
export const MAX_FRAME_LENGTH = LIMITS.maxFrameLength;

const COMPRESSION_BITS: Record<Compression, number> = { none: 0x00, zstd: 0x20, gzip: 0x40 };

export interface Frame {
  terminal: boolean;
  compression: Compression;
  reconnect: boolean;
  payload: Uint8Array;
}

/** A malformed frame: over the limit, CC=11, empty, or a bad terminal payload. */
export class FrameError extends SvcError {
  constructor(message: string) {
    super({ code: "bad_frame", message, origin: "client", status: 400, retryable: false, sideEffects: false });
    this.name = "FrameError";
  }
}

/** Frames a regular message whose payload the caller has already compressed (or not). */
export function encodeFrame(
  payload: Uint8Array,
  opts: { compression?: Compression; reconnect?: boolean } = {},
): Uint8Array {
  const flags = COMPRESSION_BITS[opts.compression ?? "none"] | (opts.reconnect ? FLAG_RECONNECT : 0);
  return frameBytes(flags, payload);
}

/** Frames a terminal message: the status and the same JSON body a unary response would carry. */
export function encodeTerminalFrame(status: number, body: unknown): Uint8Array {
  if (!Number.isInteger(status) || status < 0 || status > 0xffff) throw new RangeError(`bad terminal status ${status}`);
  const json = Buffer.from(JSON.stringify(body), "utf8");
  const payload = new Uint8Array(2 + json.length);
  payload[0] = status >> 8;
  payload[1] = status & 0xff;
  payload.set(json, 2);
  return frameBytes(FLAG_TERMINAL, payload);
}

/**
 * Frames a regular, uncompressed message that `encode` writes after 4 free bytes: the head
 * goes in front of it, so the message is not copied (the data path: inputs and read batches).
 */
export function encodeFrameInPlace(
  encode: (reserve: number) => Uint8Array,
  opts: { reconnect?: boolean } = {},
): Uint8Array {
  const out = encode(4);
  writeHead(out, out.length - 4, opts.reconnect ? FLAG_RECONNECT : 0);
  return out;
}

/** A copy of regular frame `frame` with the reconnect-advised flag set (a frame shared by several sessions stays as it is). */
export function withReconnect(frame: Uint8Array): Uint8Array {
  const out = new Uint8Array(frame);
  out[3] = out[3]! | FLAG_RECONNECT;
  return out;
}

/**
 * The 4-byte head of a regular, uncompressed frame whose payload (`payloadLength` bytes) the
 * caller sends after it as it is: lite sends stored records this way, without copying them.
 */
export function frameHead(payloadLength: number, opts: { reconnect?: boolean } = {}): Uint8Array {
  return writeHead(new Uint8Array(4), payloadLength, opts.reconnect ? FLAG_RECONNECT : 0);
}

function frameBytes(flags: number, payload: Uint8Array): Uint8Array {
  const out = writeHead(new Uint8Array(4 + payload.length), payload.length, flags);
  out.set(payload, 4);
  return out;
}

/** Writes a frame head for `payloadLength` bytes into out[0..4); refuses an oversize frame. */
function writeHead(out: Uint8Array, payloadLength: number, flags: number): Uint8Array {
  const length = payloadLength + 1;
  if (length > MAX_FRAME_LENGTH)
    throw new FrameError(`frame of ${length} bytes exceeds the ${MAX_FRAME_LENGTH}-byte limit`);
  out[0] = length >>> 16;
  out[1] = (length >>> 8) & 0xff;
  out[2] = length & 0xff;
  out[3] = flags;
  return out;
}

/** Splits a terminal payload into its status and parsed JSON body. */
export function decodeTerminal(payload: Uint8Array): { status: number; body: unknown } {
  if (payload.length < 2) throw new FrameError("terminal frame shorter than its 2-byte status");
  const status = (payload[0]! << 8) | payload[1]!;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(payload.subarray(2));
  } catch {
    throw new FrameError("terminal frame body is not valid UTF-8");
  }
  let body: unknown = {};
  if (text.length > 0) {
    try {
      body = JSON.parse(text);
    } catch {
      throw new FrameError("terminal frame body is not JSON");
    }
  }
  return { status, body };
}

function decodeFlags(flags: number): Omit<Frame, "payload"> {
  const cc = flags & COMPRESSION_MASK;
  if (cc === COMPRESSION_MASK) throw new FrameError("frame uses compression bits 11, which are invalid");
  const compression: Compression = cc === 0x20 ? "zstd" : cc === 0x40 ? "gzip" : "none";
  return { terminal: (flags & FLAG_TERMINAL) !== 0, compression, reconnect: (flags & FLAG_RECONNECT) !== 0 };
}

/**
 * Incremental frame parser. Feed it chunks with `push`, take complete frames with `next`.
 * Any split of the same byte stream yields the same frames. It keeps a list of chunks and
 * joins them once per complete frame (joining on every push is quadratic), and it validates
 * a length before waiting for (or allocating) its bytes.
 */
export class FrameParser {
  private chunks: Uint8Array[] = [];
  private size = 0;
  private failed: FrameError | undefined;

  /** Bytes received but not yet returned as frames. */
  get buffered(): number {
    return this.size;
  }

  push(chunk: Uint8Array): void {
    if (this.failed) throw this.failed;
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  /** The next complete frame, or null when more bytes are needed. Throws FrameError. */
  next(): Frame | null {
    if (this.failed) throw this.failed;
    if (this.size < 4) return null;
    const head = this.peek(4);
    const length = (head[0]! << 16) | (head[1]! << 8) | head[2]!;
    try {
      if (length === 0) throw new FrameError("frame length 0 (no flag byte)");
      if (length > MAX_FRAME_LENGTH)
        throw new FrameError(`frame length ${length} exceeds the ${MAX_FRAME_LENGTH}-byte limit`);
      const flags = decodeFlags(head[3]!);
      if (this.size < 3 + length) return null;
      const bytes = this.take(3 + length);
      const payload = bytes.subarray(4);
      if (flags.terminal) decodeTerminal(payload);
      return { ...flags, payload };
    } catch (e) {
      if (e instanceof FrameError) this.failed = e;
      throw e;
    }
  }

  /** Declares the end of input: leftover bytes mean a frame was cut off. */
  end(): void {
    if (this.failed) throw this.failed;
    if (this.size > 0) {
      this.failed = new FrameError(`stream ended inside a frame (${this.size} bytes left over)`);
      throw this.failed;
    }
  }

  private peek(n: number): Uint8Array {
    const first = this.chunks[0]!;
    if (first.length >= n) return first;
    this.chunks = [concat(this.chunks, this.size)];
    return this.chunks[0]!;
  }

  private take(n: number): Uint8Array {
    let out: Uint8Array;
    const first = this.chunks[0]!;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
    } else {
      // Copy by index and drop the used chunks with one splice: a shift() per chunk is
      // quadratic when a frame arrives in many small chunks.
      out = Buffer.allocUnsafe(n); // every byte is written below
      let filled = 0;
      let used = 0;
      while (filled < n) {
        const c = this.chunks[used]!;
        const want = Math.min(c.length, n - filled);
        out.set(c.subarray(0, want), filled);
        filled += want;
        if (want === c.length) used++;
        else this.chunks[used] = c.subarray(want);
      }
      this.chunks.splice(0, used);
    }
    this.size -= n;
    return out;
  }
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
