/** Keys of lite's lmdb databases: big-endian numbers and UTF-8 names, so byte order is seq and name order. */
import type { Database } from "lmdb";

export function u64(buf: Buffer, at: number, n: number): void {
  buf.writeUInt32BE(Math.floor(n / 0x1_0000_0000), at);
  buf.writeUInt32BE(n >>> 0, at + 4);
}

export function readU64(buf: Buffer, at: number): number {
  return buf.readUInt32BE(at) * 0x1_0000_0000 + buf.readUInt32BE(at + 4);
}

export function idKey(id: number): Buffer {
  const k = Buffer.allocUnsafe(4);
  k.writeUInt32BE(id, 0);
  return k;
}

export function batchKey(id: number, seq: number): Buffer {
  const k = Buffer.allocUnsafe(12);
  k.writeUInt32BE(id, 0);
  u64(k, 4, seq);
  return k;
}

export function tsKey(id: number, ts: number, seq: number): Buffer {
  const k = Buffer.allocUnsafe(20);
  k.writeUInt32BE(id, 0);
  u64(k, 4, ts);
  u64(k, 12, seq);
  return k;
}

export function streamKey(basin: string, name: string): Buffer {
  return Buffer.concat([Buffer.from(basin, "utf8"), Buffer.from([0]), Buffer.from(name, "utf8")]);
}

export function nameKey(name: string): Buffer {
  return Buffer.from(name, "utf8");
}

/** The smallest key of a listing: max(prefix, after + 0x00), so `after` itself is excluded. */
export function listStart(base: Buffer, prefix: string, after: string): Buffer {
  const p = Buffer.from(prefix, "utf8");
  const a = after === "" ? Buffer.alloc(0) : Buffer.concat([Buffer.from(after, "utf8"), Buffer.from([0])]);
  return Buffer.concat([base, Buffer.compare(p, a) >= 0 ? p : a]);
}

/** Values of a database keyed by their UTF-8 name: names > `after` starting with `prefix`. */
export function listByName<V>(
  db: Database<V, Buffer>,
  name: (v: V) => string,
  prefix: string,
  after: string,
  limit: number,
): V[] {
  const out: V[] = [];
  for (const { value } of db.getRange({ start: listStart(Buffer.alloc(0), prefix, after) })) {
    if (!name(value).startsWith(prefix) || out.length >= limit) break;
    out.push(value);
  }
  return out;
}
