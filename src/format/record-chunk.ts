/**
 * A file in several records (`svc append --whole --chunk`, put back together by `svc read
 * --join`): each record holds the next piece of the file and one header, `svc-chunk`, whose
 * value says which file and which piece it is:
 *
 *   svc-chunk: ID INDEX                        a piece that is not the last
 *   svc-chunk: ID INDEX last SIZE SHA256       the last piece: the whole file's size and digest
 *
 * ID names the file among the others of the stream (16 hex digits, random per input), INDEX
 * counts its pieces from 0. A reader knows a file is whole when its pieces run 0, 1, 2… with
 * one ID up to the last, and their bytes have the size and SHA-256 that the last one names;
 * anything else (a first piece trimmed away, a piece missing, another file's pieces in
 * between, a file cut off by a failed append) it can name.
 */
import { meteredSize } from "../rules/records.js";
import type { Header } from "../types.js";

export const CHUNK_HEADER = "svc-chunk";

/**
 * The most bytes a chunk header's value takes (a last piece: an ID of up to 16 characters, an
 * index and a size of up to 16 digits, `last`, a SHA-256 in hex, and the spaces): the room a
 * piece leaves for headers, so that every piece of a file but the last has the same size.
 */
const MAX_VALUE_BYTES = 128;

export interface ChunkMark {
  /** The file's ID, the same on each of its pieces. */
  id: string;
  /** The piece's place in the file, from 0. */
  index: number;
  /** On the last piece: the whole file's size in bytes and its SHA-256 (hex). */
  last?: { size: number; sha256: string };
}

/** The header of one piece. */
export function chunkHeader(mark: ChunkMark): Header {
  const value = mark.last
    ? `${mark.id} ${mark.index} last ${mark.last.size} ${mark.last.sha256}`
    : `${mark.id} ${mark.index}`;
  return { name: Buffer.from(CHUNK_HEADER), value: Buffer.from(value) };
}

/**
 * The body bytes each piece may hold so that its record takes at most `maxRecord` metered
 * bytes with `headers` (the user's `-H`) and its own header beside it; 0 or less: no room.
 */
export function chunkRoom(maxRecord: number, headers: readonly Header[]): number {
  const own = { name: Buffer.from(CHUNK_HEADER), value: Buffer.alloc(MAX_VALUE_BYTES) };
  return maxRecord - meteredSize({ headers: [...headers, own], body: new Uint8Array(0) });
}

const NAME = Buffer.from(CHUNK_HEADER);

function isChunkHeader(h: Header): boolean {
  return Buffer.compare(Buffer.from(h.name.buffer, h.name.byteOffset, h.name.byteLength), NAME) === 0;
}

/**
 * The chunk mark of a record: undefined when it has no `svc-chunk` header; a string saying
 * what is wrong when it has one that does not read (or more than one).
 */
export function chunkMarkOf(headers: readonly Header[]): ChunkMark | string | undefined {
  const marks = headers.filter(isChunkHeader);
  if (marks.length === 0) return undefined;
  if (marks.length > 1) return `it has ${marks.length} ${CHUNK_HEADER} headers`;
  const v = marks[0]!.value;
  const text = Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("latin1");
  const m = /^([!-~]{1,64}) (\d{1,16})(?: last (\d{1,16}) ([0-9a-f]{64}))?$/.exec(text);
  const index = Number(m?.[2]);
  const size = Number(m?.[3]);
  if (!m || !Number.isSafeInteger(index) || (m[3] !== undefined && !Number.isSafeInteger(size)))
    return `its ${CHUNK_HEADER} header does not read as "ID INDEX" or "ID INDEX last SIZE SHA256": ${JSON.stringify(text.slice(0, 80))}`;
  return m[3] === undefined ? { id: m[1]!, index } : { id: m[1]!, index, last: { size, sha256: m[4]! } };
}
