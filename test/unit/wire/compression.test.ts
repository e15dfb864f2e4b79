/**
 * Per-frame compression against protocol.md §6.2 (decompressed size ≤ 2,097,151), §6.4
 * (negotiation, the 1 KiB threshold, gzip member / zstd frame payloads) and
 * docs/design/reliability.md, "Bad input" (100 MiB bombs refused with RSS growth < 10 MiB).
 *
 * Hand-made zstd and gzip bytes live in test/fixtures/wire/compression.json. The zstd bombs and
 * cap-sized frames are assembled below from the RFC 8878 layout (RLE blocks), not by a compressor:
 *
 *   28 b5 2f fd | FHD | window descriptor | [content size] | blocks
 *   FHD bits: 7-6 content-size field size (0: none, 1: 2 B (+256), 2: 4 B, 3: 8 B), 5 single segment
 *   block header, 3 B little-endian: size << 3 | type << 1 | last   (type 1 = RLE: one byte, repeated)
 */

import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createGzip, gzipSync } from "node:zlib";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { SvcError } from "../../../src/errors.js";
import {
  COMPRESSION_THRESHOLD,
  compress,
  decompress,
  MAX_FRAME_PAYLOAD,
  negotiateCompression,
  shouldCompress,
} from "../../../src/wire/compression.js";
import type { Compression } from "../../../src/wire/framing.js";

const SEED = Number(process.env.FC_SEED ?? 20260224);
const CAP = 2 * 1024 * 1024 - 1; // §6.2: a regular payload, and its decompressed size, ≤ 2,097,151
const MiB = 1024 * 1024;
const BLOCK = 128 * 1024;

function hex(s: string): Uint8Array {
  return new Uint8Array(Buffer.from(s.replace(/\s+/g, ""), "hex"));
}
function toHex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected a rejection, got a value");
}
/** Corrupt data is `bad_frame`; data over the cap is `too_large` (a server's 413 follows from the code). */
function expectTypedRefusal(e: unknown, codes: string[] = ["bad_frame"]): void {
  expect(e).toBeInstanceOf(SvcError);
  expect(codes).toContain((e as SvcError).code);
  expect((e as SvcError).retryable).toBe(false);
}

/** A zstd frame of RLE blocks, laid out by hand (RFC 8878 §3.1.1). Window 128 KiB (WD 0x38). */
function zstdRleFrame(opts: {
  blocks: number[];
  byte?: number;
  contentSize?: number;
  fcsBytes?: 2 | 4 | 8;
}): Uint8Array {
  const parts: number[] = [0x28, 0xb5, 0x2f, 0xfd];
  const fcsFlag = opts.contentSize === undefined ? 0 : ({ 2: 1, 4: 2, 8: 3 } as const)[opts.fcsBytes ?? 4];
  parts.push(fcsFlag << 6, 0x38);
  if (opts.contentSize !== undefined) {
    const n = opts.fcsBytes ?? 4;
    let v = BigInt(n === 2 ? opts.contentSize - 256 : opts.contentSize);
    for (let i = 0; i < n; i++) {
      parts.push(Number(v & 0xffn));
      v >>= 8n;
    }
  }
  opts.blocks.forEach((size, i) => {
    const header = size * 8 + (1 << 1) + (i === opts.blocks.length - 1 ? 1 : 0);
    parts.push(header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff, opts.byte ?? 0);
  });
  return new Uint8Array(parts);
}
function blocksOf(total: number): number[] {
  const out: number[] = [];
  for (let left = total; left > 0; left -= BLOCK) out.push(Math.min(BLOCK, left));
  return out;
}

/** gzip of `total` zero bytes, streamed so that the 100 MiB never exist at once. */
async function gzipZeros(total: number): Promise<Uint8Array> {
  const gz = createGzip({ level: 9 });
  const chunks: Buffer[] = [];
  gz.on("data", (c: Buffer) => chunks.push(c));
  const zeros = Buffer.alloc(MiB);
  for (let sent = 0; sent < total; sent += zeros.length) {
    if (!gz.write(zeros)) await once(gz, "drain");
  }
  gz.end();
  await once(gz, "end");
  return new Uint8Array(Buffer.concat(chunks));
}

/** Peak RSS growth while `fn` runs, sampled every millisecond. */
async function rssGrowthWhile(fn: () => Promise<unknown>): Promise<{ growth: number; error: unknown }> {
  const base = process.memoryUsage.rss();
  let peak = base;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 1);
  let error: unknown;
  try {
    await fn();
  } catch (e) {
    error = e;
  } finally {
    clearInterval(timer);
  }
  peak = Math.max(peak, process.memoryUsage.rss());
  return { growth: peak - base, error };
}

// ---------------------------------------------------------------- fixtures

interface Fixtures {
  valid: { name: string; algorithm: Compression; hex: string; plain: string }[];
  invalid: { name: string; algorithm: Compression; hex: string }[];
}
const fixtures = JSON.parse(
  readFileSync(new URL("../../fixtures/wire/compression.json", import.meta.url), "utf8"),
) as Fixtures;

describe("hand-made compressed payloads", () => {
  it.each(fixtures.valid)("decompresses $name", async (fx) => {
    expect(toHex(await decompress(hex(fx.hex), fx.algorithm))).toBe(fx.plain.replace(/\s+/g, ""));
  });

  it.each(fixtures.invalid)("refuses $name with a typed error", async (fx) => {
    expectTypedRefusal(await rejection(decompress(hex(fx.hex), fx.algorithm)));
  });
});

// ---------------------------------------------------------------- round trips

describe("compress / decompress round trip", () => {
  const random = (n: number): Uint8Array => {
    const out = new Uint8Array(n);
    let s = 0x9e3779b9;
    for (let i = 0; i < n; i++) {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      out[i] = s & 0xff;
    }
    return out;
  };
  const cases: [string, Uint8Array][] = [
    ["empty", new Uint8Array(0)],
    ["1 byte", hex("2a")],
    ["1023 zero bytes", new Uint8Array(1023)],
    ["1 KiB text", new TextEncoder().encode("svc ".repeat(256))],
    ["100 KB random", random(100_000)],
    ["2 MiB - 1 random (the cap)", random(CAP)],
  ];

  describe.each(["zstd", "gzip"] as const)("%s", (algorithm) => {
    it.each(cases)("%s", async (_name, data) => {
      const packed = await compress(data, algorithm);
      if (algorithm === "zstd")
        expect(toHex(packed.subarray(0, 4))).toBe("28b52ffd"); // a standard zstd frame
      else expect(toHex(packed.subarray(0, 3))).toBe("1f8b08"); // a standard gzip member, deflate
      const back = await decompress(packed, algorithm);
      expect(back.length).toBe(data.length);
      expect(Buffer.compare(Buffer.from(back), Buffer.from(data))).toBe(0);
    });

    it("round-trips random payloads (property)", async () => {
      await fc.assert(
        fc.asyncProperty(fc.uint8Array({ maxLength: 4096 }), async (data) => {
          const back = await decompress(await compress(data, algorithm), algorithm);
          expect(toHex(back)).toBe(toHex(data));
        }),
        { seed: SEED, numRuns: 200 },
      );
    });

    it("refuses random bytes with a typed error, never anything else (property)", async () => {
      await fc.assert(
        fc.asyncProperty(fc.uint8Array({ maxLength: 256 }), fc.boolean(), async (tail, withMagic) => {
          const magic = algorithm === "zstd" ? hex("28 b5 2f fd") : hex("1f 8b 08 00");
          const data = withMagic ? new Uint8Array(Buffer.concat([magic, tail])) : tail;
          try {
            await decompress(data, algorithm);
          } catch (e) {
            expectTypedRefusal(e, ["bad_frame", "too_large"]);
          }
        }),
        { seed: SEED, numRuns: 300 },
      );
    });
  });

  it('compress(…, "none") is the identity', async () => {
    expect(toHex(await compress(hex("01 02 03"), "none"))).toBe("010203");
  });
});

// ---------------------------------------------------------------- the 2 MiB cap

describe("decompressed size cap (§6.2: 2,097,151 bytes)", () => {
  it("MAX_FRAME_PAYLOAD is 2 MiB - 1", () => {
    expect(MAX_FRAME_PAYLOAD).toBe(CAP);
  });

  it("gzip: exactly the cap decompresses; one byte more is refused", async () => {
    expect((await decompress(gzipSync(Buffer.alloc(CAP, 0x61)), "gzip")).length).toBe(CAP);
    expectTypedRefusal(await rejection(decompress(gzipSync(Buffer.alloc(CAP + 1, 0x61)), "gzip")), ["too_large"]);
  });

  it("zstd with a declared content size: exactly the cap decompresses; one byte more is refused", async () => {
    const atCap = zstdRleFrame({ blocks: blocksOf(CAP), contentSize: CAP, byte: 0x61 });
    const out = await decompress(atCap, "zstd");
    expect(out.length).toBe(CAP);
    expect(out[CAP - 1]).toBe(0x61);
    expectTypedRefusal(
      await rejection(decompress(zstdRleFrame({ blocks: blocksOf(CAP + 1), contentSize: CAP + 1 }), "zstd")),
      ["too_large"],
    );
  });

  it("zstd without a content size (streaming encoders omit it): the cap decompresses; one byte more is refused", async () => {
    expect((await decompress(zstdRleFrame({ blocks: blocksOf(CAP), byte: 0x62 }), "zstd")).length).toBe(CAP);
    expectTypedRefusal(await rejection(decompress(zstdRleFrame({ blocks: blocksOf(CAP + 1) }), "zstd")), ["too_large"]);
  });

  it("zstd made by the encoder: the cap decompresses, one byte more is refused", async () => {
    expect((await decompress(await compress(new Uint8Array(CAP), "zstd"), "zstd")).length).toBe(CAP);
    expectTypedRefusal(await rejection(decompress(await compress(new Uint8Array(CAP + 1), "zstd"), "zstd")), [
      "too_large",
    ]);
  });

  it("an uncompressed payload over the cap is refused too", async () => {
    expect((await decompress(new Uint8Array(CAP), "none")).length).toBe(CAP);
    expectTypedRefusal(await rejection(decompress(new Uint8Array(CAP + 1), "none")), ["too_large"]);
  });
});

// ---------------------------------------------------------------- bombs

describe("100 MiB zip bombs are refused without inflating them (reliability §2.c)", () => {
  const BOMB = 100 * MiB;
  const bombs: Record<string, Uint8Array> = {};

  beforeAll(async () => {
    bombs.gzip = await gzipZeros(BOMB);
    bombs.zstdEncoder = await compress(new Uint8Array(BOMB), "zstd");
    bombs.zstdNoSize = zstdRleFrame({ blocks: blocksOf(BOMB) });
    bombs.zstdDeclared = zstdRleFrame({ blocks: blocksOf(BOMB), contentSize: BOMB });
    bombs.zstdLyingSize = zstdRleFrame({ blocks: blocksOf(BOMB), contentSize: 256, fcsBytes: 2 });
    bombs.zstd8ByteSize = zstdRleFrame({ blocks: blocksOf(BOMB), contentSize: BOMB, fcsBytes: 8 });
  }, 60_000);

  it("the bombs are small on the wire", () => {
    for (const [name, bytes] of Object.entries(bombs)) expect(bytes.length, name).toBeLessThan(200 * 1024);
  });

  it.each([
    ["gzip", "gzip"],
    ["zstd from the encoder (content size declared)", "zstdEncoder"],
    ["zstd, RLE blocks, no content size", "zstdNoSize"],
    ["zstd, RLE blocks, content size 100 MiB", "zstdDeclared"],
    ["zstd, RLE blocks, content size lying (256)", "zstdLyingSize"],
    ["zstd, RLE blocks, 8-byte content size", "zstd8ByteSize"],
  ])("%s: refused with a typed error, RSS grows < 10 MiB", async (_name, key) => {
    const bomb = bombs[key]!;
    const algorithm: Compression = key === "gzip" ? "gzip" : "zstd";
    const { growth, error } = await rssGrowthWhile(() => decompress(bomb, algorithm));
    expectTypedRefusal(error, ["too_large"]);
    expect(growth).toBeLessThan(10 * MiB);
  });
});

// ---------------------------------------------------------------- negotiation

describe("negotiateCompression (§6.4)", () => {
  it.each<[string | string[] | undefined, Compression]>([
    [undefined, "none"],
    ["", "none"],
    ["identity", "none"],
    ["br, deflate", "none"],
    ["*", "none"],
    ["gzipx, xzstd", "none"],
    ["gzip", "gzip"],
    ["zstd", "zstd"],
    ["gzip, zstd", "zstd"],
    ["zstd, gzip", "zstd"],
    ["br,gzip,deflate", "gzip"],
    ["gzip;q=1.0, zstd;q=0", "zstd"],
    ["zstd;q=0", "zstd"],
    ["gzip;q=0", "gzip"],
    ["ZSTD", "zstd"],
    ["GZip", "gzip"],
    ["  gzip ; q=0.5 ,  br", "gzip"],
    [["br", "gzip"], "gzip"],
    [["gzip", "br, zStd;q=0.1"], "zstd"],
  ])("Accept-Encoding %j → %s", (header, expected) => {
    expect(negotiateCompression(header)).toBe(expected);
  });
});

describe("shouldCompress: nothing under 1 KiB (§6.4)", () => {
  it.each([
    [0, false],
    [1, false],
    [1023, false],
    [1024, true],
    [1025, true],
    [CAP, true],
  ])("%i bytes → %s", (size, expected) => {
    expect(shouldCompress(size)).toBe(expected);
  });

  it("the threshold is 1024", () => {
    expect(COMPRESSION_THRESHOLD).toBe(1024);
  });
});
