/**
 * Per-frame and per-body compression: zstd (preferred) and gzip (protocol.md §2.0, §6.4).
 *
 * - Messages under 1 KiB are never compressed (`shouldCompress`).
 * - Decompression is capped (2 MiB − 1 for frames). The cap is enforced before inflating:
 *   for zstd by reading the frame headers (the declared content size, or an upper bound
 *   from the block headers), for gzip by zlib's `maxOutputLength`, which stops at the cap.
 *   A 100 MiB bomb is refused without ever being inflated.
 *
 * zstd frame layout used for the bound (RFC 8878 §3.1.1):
 *   magic 28 B5 2F FD | frame header (descriptor, [window], [dict id], [content size])
 *   | blocks: 3-byte little-endian header [size:21][type:2][last:1] + content | [checksum 4]
 *   skippable frames: magic 0x184D2A5? + 4-byte size + data
 */

import { promisify } from "node:util";
import { gunzip, gzip } from "node:zlib";
import { missingPackage, SvcError } from "../errors.js";
import { LIMITS } from "../types.js";
import type { Compression } from "./framing.js";

export const COMPRESSION_THRESHOLD = LIMITS.compressionThreshold;
/** Largest decompressed frame payload: the frame limit minus the flag byte. */
export const MAX_FRAME_PAYLOAD = LIMITS.maxFrameLength - 1;

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

type ZstdModule = typeof import("@mongodb-js/zstd");
let zstdModule: Promise<ZstdModule> | undefined;
/** The zstd binding is loaded only when first needed (it costs start-up time). */
function zstd(): Promise<ZstdModule> {
  zstdModule ??= import("@mongodb-js/zstd").catch((e: unknown) => {
    zstdModule = undefined;
    throw missingPackage(e, "@mongodb-js/zstd", "zstd compression");
  });
  return zstdModule;
}

/**
 * Loads the zstd binding now: a session that will speak zstd fails before it opens, with the
 * package to install, rather than at its first large frame.
 */
export async function zstdReady(): Promise<void> {
  await zstd();
}

/**
 * Picks the algorithm from an Accept-Encoding value: any `zstd` token wins, then `gzip`.
 * Parameters such as `;q=` are ignored and tokens are case-insensitive (§6.4).
 */
export function negotiateCompression(acceptEncoding: string | string[] | undefined): Compression {
  if (acceptEncoding === undefined) return "none";
  const value = Array.isArray(acceptEncoding) ? acceptEncoding.join(",") : acceptEncoding;
  const tokens = value.split(",").map((t) => t.split(";")[0]!.trim().toLowerCase());
  if (tokens.includes("zstd")) return "zstd";
  if (tokens.includes("gzip")) return "gzip";
  return "none";
}

/** Parses a Content-Encoding value into an algorithm, or undefined when unsupported. */
export function parseContentEncoding(value: string | undefined): Compression | undefined {
  const v = (value ?? "").trim().toLowerCase();
  if (v === "" || v === "identity") return "none";
  if (v === "zstd") return "zstd";
  if (v === "gzip" || v === "x-gzip") return "gzip";
  return undefined;
}

export function shouldCompress(size: number): boolean {
  return size >= COMPRESSION_THRESHOLD;
}

export async function compress(data: Uint8Array, algorithm: Compression): Promise<Uint8Array> {
  switch (algorithm) {
    case "none":
      return data;
    case "gzip":
      return gzipAsync(data, { level: 1 });
    case "zstd":
      return (await zstd()).compress(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  }
}

/** Its own code (not `bad_frame`): a server answers a too-large body with 413, not 400. */
function tooLarge(limit: number, what: string): SvcError {
  return new SvcError({
    code: "too_large",
    origin: "client",
    retryable: false,
    sideEffects: false,
    message: `${what} decompresses to more than ${limit} bytes`,
  });
}

function corrupt(algorithm: Compression, cause?: unknown): SvcError {
  return new SvcError({
    code: "bad_frame",
    origin: "client",
    status: 400,
    retryable: false,
    sideEffects: false,
    message: `payload is not valid ${algorithm} data`,
    cause,
  });
}

/** Decompresses at most `maxSize` bytes; anything larger is refused without being inflated. */
export async function decompress(
  data: Uint8Array,
  algorithm: Compression,
  maxSize: number = MAX_FRAME_PAYLOAD,
): Promise<Uint8Array> {
  if (algorithm === "none") {
    if (data.length > maxSize) throw tooLarge(maxSize, "payload");
    return data;
  }
  if (algorithm === "gzip") {
    try {
      return await gunzipAsync(data, { maxOutputLength: maxSize });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE" || e instanceof RangeError)
        throw tooLarge(maxSize, "gzip payload");
      throw corrupt(algorithm, e);
    }
  }
  const bound = zstdDecompressedBound(data);
  if (bound === undefined) throw corrupt(algorithm);
  // The block bound over-counts a frame's last block by < 128 KiB, so legitimate payloads
  // near the cap pass here; the exact size is checked after the (bounded) inflation.
  if (bound.declared > maxSize || bound.blocks > maxSize + BLOCK_MAX) throw tooLarge(maxSize, "zstd payload");
  // Outside the try: a binding that is not installed is not corrupt data.
  const z = await zstd();
  let out: Buffer;
  try {
    out = await z.decompress(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  } catch (e) {
    throw corrupt(algorithm, e);
  }
  if (out.length > maxSize) throw tooLarge(maxSize, "zstd payload");
  return out;
}

const ZSTD_MAGIC = 0xfd2fb528;
const BLOCK_MAX = 128 * 1024;

/**
 * Sizes of a sequence of zstd frames read from the headers alone, or undefined when the data
 * is not well-formed zstd. `blocks` is a hard upper bound on the decompressed size (raw and
 * RLE blocks declare their size; a compressed block regenerates at most min(window, 128 KiB));
 * `declared` sums the content sizes the frames claim (0 where absent).
 */
function zstdDecompressedBound(data: Uint8Array): { blocks: number; declared: number } | undefined {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let at = 0;
  let blocks = 0;
  let declared = 0;
  if (data.length < 4) return undefined;
  while (at < data.length) {
    if (at + 4 > data.length) return undefined;
    const magic = view.getUint32(at, true);
    if ((magic & 0xfffffff0) === 0x184d2a50) {
      if (at + 8 > data.length) return undefined;
      at += 8 + view.getUint32(at + 4, true);
      continue;
    }
    if (magic !== ZSTD_MAGIC) return undefined;
    const frame = zstdFrameBound(data, view, at + 4);
    if (frame === undefined) return undefined;
    blocks += frame.blocks;
    declared += frame.declared;
    at = frame.next;
  }
  return at === data.length ? { blocks, declared } : undefined;
}

function zstdFrameBound(
  data: Uint8Array,
  view: DataView,
  at: number,
): { blocks: number; declared: number; next: number } | undefined {
  if (at >= data.length) return undefined;
  const fhd = data[at]!;
  const fcsFlag = fhd >> 6;
  const singleSegment = (fhd >> 5) & 1;
  const checksum = (fhd >> 2) & 1;
  const dictIdFlag = fhd & 3;
  at += 1;
  let window = BLOCK_MAX;
  if (!singleSegment) {
    if (at >= data.length) return undefined;
    const wd = data[at]!;
    const exponent = wd >> 3;
    const base = 2 ** (10 + exponent);
    window = base + (base / 8) * (wd & 7);
    at += 1;
  }
  at += [0, 1, 2, 4][dictIdFlag]!;
  const fcsSize = [singleSegment ? 1 : 0, 2, 4, 8][fcsFlag]!;
  if (at + fcsSize > data.length) return undefined;
  let contentSize: number | undefined;
  if (fcsSize === 1) contentSize = data[at]!;
  else if (fcsSize === 2) contentSize = view.getUint16(at, true) + 256;
  else if (fcsSize === 4) contentSize = view.getUint32(at, true);
  else if (fcsSize === 8) contentSize = view.getUint32(at, true) + view.getUint32(at + 4, true) * 2 ** 32;
  at += fcsSize;
  const blockMax = Math.min(window, BLOCK_MAX);
  let blocks = 0;
  for (;;) {
    if (at + 3 > data.length) return undefined;
    const header = data[at]! | (data[at + 1]! << 8) | (data[at + 2]! << 16);
    const last = header & 1;
    const type = (header >> 1) & 3;
    const size = header >>> 3;
    at += 3;
    if (type === 3) return undefined;
    if (type === 0) {
      blocks += size;
      at += size;
    } else if (type === 1) {
      blocks += size;
      at += 1;
    } else {
      blocks += blockMax;
      at += size;
    }
    if (at > data.length) return undefined;
    if (last) break;
  }
  if (checksum) at += 4;
  if (at > data.length) return undefined;
  return { blocks, declared: contentSize ?? 0, next: at };
}
