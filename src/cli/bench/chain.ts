/**
 * The integrity chain of `svc bench`: every record carries the hash of its writer's previous
 * record, so a lost, duplicated, reordered or altered record breaks the chain.
 *
 *   bytes 0..31   chain hash: sha256(previous chain hash ‖ bytes 32..end)
 *   bytes 32..39  run id (random per run: records of other runs are foreign)
 *   bytes 40..43  writer number (u32 BE)
 *   bytes 44..51  index of the record within its writer (u64 BE, from 0)
 *   bytes 52..59  send time, ms on this process's monotonic clock (f64 BE)
 *   bytes 60..    filler up to the record size
 *
 * The first record of a writer chains from sha256(run id ‖ writer number).
 */
import { createHash, randomBytes } from "node:crypto";

export const CHAIN_HEADER_BYTES = 60;

function genesis(runId: Buffer, writer: number): Buffer {
  const w = Buffer.alloc(4);
  w.writeUInt32BE(writer, 0);
  return createHash("sha256").update(runId).update(w).digest();
}

export function newRunId(): Buffer {
  return randomBytes(8);
}

/** Builds one writer's records: each `next()` returns a fresh body chained to the last. */
export class ChainWriter {
  private prev: Buffer;
  private index = 0;
  private readonly filler: Buffer;

  constructor(
    private readonly runId: Buffer,
    private readonly writer: number,
    private readonly size: number,
  ) {
    this.prev = genesis(runId, writer);
    this.filler = randomBytes(Math.max(0, size - CHAIN_HEADER_BYTES));
  }

  get written(): number {
    return this.index;
  }

  next(sentMs: number): Buffer {
    const body = Buffer.allocUnsafe(this.size);
    this.runId.copy(body, 32);
    body.writeUInt32BE(this.writer, 40);
    body.writeUInt32BE(Math.floor(this.index / 0x1_0000_0000), 44);
    body.writeUInt32BE(this.index >>> 0, 48);
    body.writeDoubleBE(sentMs, 52);
    this.filler.copy(body, CHAIN_HEADER_BYTES);
    createHash("sha256").update(this.prev).update(body.subarray(32)).digest().copy(body, 0);
    this.prev = body.subarray(0, 32);
    this.index++;
    return body;
  }
}

interface Verified {
  writer: number;
  index: number;
  sentMs: number;
}

/** Checks records in stream order; throws a ChainError at the first break. */
export class ChainVerifier {
  private readonly prev = new Map<number, Buffer>();
  private readonly nextIndex = new Map<number, number>();
  count = 0;

  constructor(
    private readonly runId: Buffer,
    private readonly writers: number,
  ) {}

  check(body: Uint8Array, seqNum: number): Verified {
    const b = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    if (b.length < CHAIN_HEADER_BYTES || !b.subarray(32, 40).equals(this.runId))
      throw new ChainError(`record ${seqNum} is not from this run`);
    const writer = b.readUInt32BE(40);
    if (writer >= this.writers) throw new ChainError(`record ${seqNum} names writer ${writer}, which does not exist`);
    const index = b.readUInt32BE(44) * 0x1_0000_0000 + b.readUInt32BE(48);
    const expected = this.nextIndex.get(writer) ?? 0;
    if (index !== expected) {
      const what =
        index < expected ? "duplicated or reordered" : `${index - expected} record(s) lost or reordered before it`;
      throw new ChainError(`record ${seqNum}: writer ${writer} record ${index}, expected ${expected} (${what})`);
    }
    const prev = this.prev.get(writer) ?? genesis(this.runId, writer);
    const hash = createHash("sha256").update(prev).update(b.subarray(32)).digest();
    if (!hash.equals(b.subarray(0, 32)))
      throw new ChainError(
        `record ${seqNum}: writer ${writer} record ${index} does not match the hash chain (altered)`,
      );
    this.prev.set(writer, Buffer.from(hash));
    this.nextIndex.set(writer, index + 1);
    this.count++;
    return { writer, index, sentMs: b.readDoubleBE(52) };
  }

  /** Records verified per writer so far. */
  seen(writer: number): number {
    return this.nextIndex.get(writer) ?? 0;
  }
}

export class ChainError extends Error {
  override name = "ChainError";
}
