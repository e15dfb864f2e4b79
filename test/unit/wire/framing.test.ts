/**
 * Session framing against protocol.md §6.2–6.3 (and the frame cases of docs/design/reliability.md,
 * "Bad input").
 *
 *   length (3 B, big-endian, = 1 + payload length, 1 ..= 2,097,152) | flags | payload
 *   flags = [T 0x80][CC 0x60: 00 none, 01 zstd, 10 gzip, 11 invalid][A 0x10][RRRR 0x0f ignored]
 *   terminal payload = 2-byte big-endian status + UTF-8 JSON
 *
 * Expected bytes come from test/fixtures/wire/frames.json (hand-written) or from `specFrame`
 * below, a few lines written from the layout above; never from the encoder under test.
 */
import { readFileSync } from "node:fs";
import vm from "node:vm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SvcError } from "../../../src/errors.js";
import {
  type Compression,
  decodeTerminal,
  encodeFrame,
  encodeFrameInPlace,
  encodeTerminalFrame,
  type Frame,
  FrameError,
  FrameParser,
  MAX_FRAME_LENGTH,
} from "../../../src/wire/framing.js";

const SEED = Number(process.env.FC_SEED ?? 20260224);
const LIMIT = 2 * 1024 * 1024; // §6.2: the maximum value of `length`

// ---------------------------------------------------------------- helpers (from the spec)

function hex(s: string): Uint8Array {
  return new Uint8Array(Buffer.from(s.replace(/\s+/g, ""), "hex"));
}
function toHex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
}
function concatBytes(parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts.map((p) => Buffer.from(p))));
}

/** A frame laid out by hand from §6.2. */
function specFrame(flags: number, payload: Uint8Array): Uint8Array {
  const length = payload.length + 1;
  return concatBytes([
    new Uint8Array([(length >> 16) & 0xff, (length >> 8) & 0xff, length & 0xff, flags & 0xff]),
    payload,
  ]);
}

const CC_BITS: Record<Compression, number> = { none: 0x00, zstd: 0x20, gzip: 0x40 };
const CC_NAMES: Record<number, Compression> = { 0x00: "none", 0x20: "zstd", 0x40: "gzip" };

interface FrameView {
  terminal: boolean;
  compression: Compression;
  reconnect: boolean;
  payload: string;
}
/** What a receiver must report for a frame with these flags (§6.2: reserved bits ignored). */
function expectedView(flags: number, payload: Uint8Array): FrameView {
  return {
    terminal: (flags & 0x80) !== 0,
    compression: CC_NAMES[flags & 0x60]!,
    reconnect: (flags & 0x10) !== 0,
    payload: toHex(payload),
  };
}
function view(f: Frame): FrameView {
  return { terminal: f.terminal, compression: f.compression, reconnect: f.reconnect, payload: toHex(f.payload) };
}

/** Feeds `bytes` split at the given chunk sizes, draining after every push; then `end()`. */
function feed(bytes: Uint8Array, chunks: "all" | "byte" | number[], opts: { end?: boolean } = {}): FrameView[] {
  const parser = new FrameParser();
  const out: FrameView[] = [];
  const drain = (): void => {
    for (let f = parser.next(); f !== null; f = parser.next()) out.push(view(f));
  };
  const sizes = chunks === "all" ? [bytes.length] : chunks === "byte" ? Array<number>(bytes.length).fill(1) : chunks;
  let at = 0;
  for (const size of sizes) {
    if (at >= bytes.length) break;
    parser.push(bytes.subarray(at, Math.min(bytes.length, at + size)));
    at += size;
    drain();
  }
  if (at < bytes.length) {
    parser.push(bytes.subarray(at));
    drain();
  }
  if (opts.end !== false) parser.end();
  return out;
}

/** Random chunk sizes that cover `n` bytes (deterministic from `seed`). */
function randomChunks(n: number, seed: number): number[] {
  let s = seed >>> 0 || 1;
  const sizes: number[] = [];
  let left = n;
  while (left > 0) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    const size = 1 + (s % Math.min(left, 7));
    sizes.push(size);
    left -= size;
  }
  return sizes;
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error("expected an exception, got none");
}
function expectBadFrame(e: unknown): void {
  expect(e).toBeInstanceOf(FrameError);
  expect(e).toBeInstanceOf(SvcError);
  const err = e as FrameError;
  expect(err.code).toBe("bad_frame");
  expect(err.status).toBe(400);
  expect(err.retryable).toBe(false);
}

// ---------------------------------------------------------------- fixtures

interface FixtureFrame extends FrameView {
  status?: number;
  body?: unknown;
}
interface Fixtures {
  valid: { name: string; hex: string; frames: FixtureFrame[] }[];
  invalid: { name: string; hex: string; framesBefore?: number }[];
  truncated: { name: string; hex: string; framesBefore?: number }[];
}
const fixtures = JSON.parse(
  readFileSync(new URL("../../fixtures/wire/frames.json", import.meta.url), "utf8"),
) as Fixtures;

/** Walks a stream by the §6.2 layout; used only to check the fixtures themselves. */
function specSplit(bytes: Uint8Array): { flags: number; payload: Uint8Array }[] {
  const out: { flags: number; payload: Uint8Array }[] = [];
  let at = 0;
  while (at < bytes.length) {
    const length = (bytes[at]! << 16) | (bytes[at + 1]! << 8) | bytes[at + 2]!;
    if (length < 1 || at + 3 + length > bytes.length) throw new Error(`fixture is malformed at ${at}`);
    out.push({ flags: bytes[at + 3]!, payload: bytes.subarray(at + 4, at + 3 + length) });
    at += 3 + length;
  }
  return out;
}

describe("frame fixtures (§6.2 worked examples and hand-written vectors)", () => {
  it.each(fixtures.valid)("fixture is self-consistent: $name", (fx) => {
    const split = specSplit(hex(fx.hex));
    expect(split.map((f) => expectedView(f.flags, f.payload))).toEqual(
      fx.frames.map((f) => ({
        terminal: f.terminal,
        compression: f.compression,
        reconnect: f.reconnect,
        payload: f.payload.replace(/\s+/g, ""),
      })),
    );
  });

  describe.each(["all", "byte", "random"] as const)("fed %s", (mode) => {
    it.each(fixtures.valid)("decodes $name", (fx) => {
      const bytes = hex(fx.hex);
      const chunks = mode === "random" ? randomChunks(bytes.length, bytes.length * 7919) : mode;
      const frames = feed(bytes, chunks);
      expect(frames).toEqual(
        fx.frames.map((f) => ({
          terminal: f.terminal,
          compression: f.compression,
          reconnect: f.reconnect,
          payload: f.payload.replace(/\s+/g, ""),
        })),
      );
      fx.frames.forEach((f, i) => {
        if (f.status !== undefined)
          expect(decodeTerminal(hex(frames[i]!.payload))).toEqual({ status: f.status, body: f.body });
      });
    });

    it.each(fixtures.invalid)("rejects $name with bad_frame before end()", (fx) => {
      const bytes = hex(fx.hex);
      const chunks = mode === "random" ? randomChunks(bytes.length, bytes.length * 104729) : mode;
      const parser = new FrameParser();
      let got = 0;
      const e = thrown(() => {
        const sizes =
          chunks === "all" ? [bytes.length] : chunks === "byte" ? Array<number>(bytes.length).fill(1) : chunks;
        let at = 0;
        for (const size of sizes) {
          parser.push(bytes.subarray(at, at + size));
          at += size;
          while (parser.next() !== null) got++;
        }
      });
      expectBadFrame(e);
      expect(got).toBe(fx.framesBefore ?? 0);
    });

    it.each(fixtures.truncated)("end() inside a frame throws bad_frame: $name", (fx) => {
      const bytes = hex(fx.hex);
      const chunks = mode === "random" ? randomChunks(bytes.length, 31337) : mode;
      const frames = feed(bytes, chunks, { end: false });
      expect(frames.length).toBe(fx.framesBefore ?? 0);
      const parser = new FrameParser();
      parser.push(bytes);
      while (parser.next() !== null) {
        /* drain */
      }
      expectBadFrame(thrown(() => parser.end()));
    });
  });
});

// ---------------------------------------------------------------- encoding

describe("encodeFrame / encodeTerminalFrame", () => {
  it('§6.2 worked example: AppendInput{records:[{body:"hi"}]} uncompressed', () => {
    expect(toHex(encodeFrame(hex("0a 04 1a 02 68 69")))).toBe("000007000a041a026869");
  });

  it("§6.2 worked example: heartbeat ReadBatch", () => {
    expect(toHex(encodeFrame(hex("12 05 08 05 10 e8 07")))).toBe("000008001205080510e807");
  });

  it('§6.2 worked example: terminal 412 {"seq_num_mismatch":5}', () => {
    expect(toHex(encodeTerminalFrame(412, { seq_num_mismatch: 5 }))).toBe(
      "00001980019c7b227365715f6e756d5f6d69736d61746368223a357d",
    );
  });

  it.each([
    ["none", false, 0x00],
    ["zstd", false, 0x20],
    ["gzip", false, 0x40],
    ["none", true, 0x10],
    ["zstd", true, 0x30],
    ["gzip", true, 0x50],
  ] as const)("flags for compression %s, reconnect %s are the byte %i", (compression, reconnect, flags) => {
    const payload = hex("01 02 03");
    expect(toHex(encodeFrame(payload, { compression, reconnect }))).toBe(toHex(specFrame(flags, payload)));
  });

  it("terminal frames carry exactly 0x80 (§6.3)", () => {
    const bytes = encodeTerminalFrame(503, { code: "server_draining", message: "bye" });
    expect(bytes[3]).toBe(0x80);
    expect(decodeTerminal(bytes.subarray(4))).toEqual({
      status: 503,
      body: { code: "server_draining", message: "bye" },
    });
  });

  it("the largest payload (2,097,151 bytes) is framed with length 0x200000", () => {
    const bytes = encodeFrame(new Uint8Array(LIMIT - 1));
    expect(toHex(bytes.subarray(0, 4))).toBe("20000000");
    expect(bytes.length).toBe(LIMIT + 3);
    expect(MAX_FRAME_LENGTH).toBe(LIMIT);
  });

  it("refuses a payload that would exceed the 2 MiB limit (§6.2: senders MUST NOT)", () => {
    expectBadFrame(thrown(() => encodeFrame(new Uint8Array(LIMIT))));
    expectBadFrame(thrown(() => encodeFrame(new Uint8Array(LIMIT), { compression: "zstd" })));
    expectBadFrame(thrown(() => encodeTerminalFrame(400, { code: "x", message: "m".repeat(LIMIT) })));
  });
});

// ---------------------------------------------------------------- parser limits and rules

describe("FrameParser rules (§6.2, reliability §2.c)", () => {
  it.each([
    ["ff ff ff 00", "0xffffff (16 MiB)"],
    ["20 00 01 00", "2 MiB + 1"],
  ])("rejects length %s (%s) from the 4-byte header alone, before any body arrives", (header) => {
    const parser = new FrameParser();
    const before = process.memoryUsage().rss;
    parser.push(hex(header));
    expectBadFrame(thrown(() => parser.next()));
    expect(process.memoryUsage().rss - before).toBeLessThan(5 * 1024 * 1024);
    // The failure sticks: the stream cannot be resynchronised.
    expectBadFrame(thrown(() => parser.next()));
  });

  it("accepts length exactly 2 MiB and waits for its body", () => {
    const parser = new FrameParser();
    parser.push(hex("20 00 00 00"));
    expect(parser.next()).toBeNull();
    parser.push(new Uint8Array(LIMIT - 1));
    const frame = parser.next();
    expect(frame?.payload.length).toBe(LIMIT - 1);
    parser.end();
  });

  it("an empty stream ends cleanly; next() on no data is null", () => {
    const parser = new FrameParser();
    expect(parser.next()).toBeNull();
    parser.push(new Uint8Array(0));
    expect(parser.next()).toBeNull();
    parser.end();
  });

  it("a compressed payload under 1 KiB is still accepted by the parser (the 1 KiB rule binds senders)", () => {
    expect(feed(specFrame(0x40, hex("1f 8b")), "all")).toEqual([expectedView(0x40, hex("1f 8b"))]);
  });

  it("decodeTerminal: status is big-endian, the body is JSON", () => {
    expect(decodeTerminal(hex("01 9c 7b 7d"))).toEqual({ status: 412, body: {} });
    expect(
      decodeTerminal(
        hex(
          "01 a0 7b 22 74 61 69 6c 22 3a 7b 22 73 65 71 5f 6e 75 6d 22 3a 30 2c 22 74 69 6d 65 73 74 61 6d 70 22 3a 30 7d 7d",
        ),
      ),
    ).toEqual({ status: 416, body: { tail: { seq_num: 0, timestamp: 0 } } });
    expectBadFrame(thrown(() => decodeTerminal(hex(""))));
    expectBadFrame(thrown(() => decodeTerminal(hex("01"))));
    expectBadFrame(thrown(() => decodeTerminal(hex("01 90 ff"))));
  });

  it("a 2 MiB frame delivered in 1-byte chunks parses (no quadratic copying)", () => {
    // docs/design/reliability.md, "Bad input": a 2 MiB frame delivered in 1-byte chunks decodes
    // in under 2 s, which catches a parser that copies its whole buffer on every chunk. No timing
    // assertion here, but a quadratic parser would spin for hours inside one synchronous next(),
    // which no vitest timeout can interrupt; vm's watchdog can, so a hang fails instead of
    // stalling the suite. 10 s is 5x the reliability budget (a linear parser needs about 1 s).
    const payload = new Uint8Array(LIMIT - 1);
    for (let i = 0; i < payload.length; i++) payload[i] = i & 0xff;
    const bytes = specFrame(0x00, payload);
    const run = (): { frames: number; length: number; sample: number } => {
      const parser = new FrameParser();
      let frames = 0;
      let last: Frame | null = null;
      for (let i = 0; i < bytes.length; i++) {
        parser.push(bytes.subarray(i, i + 1));
        const f = parser.next();
        if (f !== null) {
          frames++;
          last = f;
        }
      }
      parser.end();
      return { frames, length: last?.payload.length ?? -1, sample: last?.payload[123_457] ?? -1 };
    };
    let result: ReturnType<typeof run>;
    try {
      result = vm.runInNewContext("run()", { run }, { timeout: 10_000 }) as ReturnType<typeof run>;
    } catch (e) {
      if ((e as { code?: string }).code === "ERR_SCRIPT_EXECUTION_TIMEOUT") {
        throw new Error(
          "FrameParser did not finish a 2 MiB frame fed 1 byte at a time within 10 s: its work grows faster than linearly with the number of chunks",
        );
      }
      throw e;
    }
    expect(result).toEqual({ frames: 1, length: LIMIT - 1, sample: 123_457 & 0xff });
  }, 30_000);
});

// ---------------------------------------------------------------- properties

const compressionArb = fc.constantFrom<Compression>("none", "zstd", "gzip");
/** Any flag byte except CC=11 and T; reserved bits random. */
const regularFlagsArb = fc.integer({ min: 0, max: 0x7f }).filter((f) => (f & 0x60) !== 0x60);
const jsonBodyArb = fc.oneof(
  fc.record({ code: fc.string(), message: fc.string({ unit: "binary" }) }),
  fc.record({ seq_num_mismatch: fc.maxSafeNat() }),
  fc.record({ fencing_token_mismatch: fc.string({ unit: "binary", maxLength: 36 }) }),
);
/** A terminal frame built by hand: status + UTF-8 JSON, flags 0x80 plus optional reserved bits. */
const terminalArb = fc
  .record({ status: fc.integer({ min: 0, max: 0xffff }), body: jsonBodyArb, reserved: fc.integer({ min: 0, max: 15 }) })
  .map(({ status, body, reserved }) => {
    const payload = concatBytes([
      new Uint8Array([status >> 8, status & 0xff]),
      new TextEncoder().encode(JSON.stringify(body)),
    ]);
    return { bytes: specFrame(0x80 | reserved, payload), view: expectedView(0x80 | reserved, payload) };
  });
const regularArb = fc
  .record({ flags: regularFlagsArb, payload: fc.uint8Array({ maxLength: 300 }) })
  .map(({ flags, payload }) => ({ bytes: specFrame(flags, payload), view: expectedView(flags, payload) }));
/** A session: regular frames, and maybe one terminal frame at the end (§6.3: nothing follows it). */
const streamArb = fc
  .tuple(fc.array(regularArb, { maxLength: 12 }), fc.option(terminalArb, { nil: undefined }))
  .map(([regular, terminal]) => {
    const frames = terminal ? [...regular, terminal] : regular;
    return { bytes: concatBytes(frames.map((f) => f.bytes)), views: frames.map((f) => f.view) };
  });

describe("properties (fast-check)", () => {
  it("encodeFrame matches the §6.2 layout and decodes back, for random payloads and flags", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 2048 }),
        compressionArb,
        fc.boolean(),
        (payload, compression, reconnect) => {
          const flags = CC_BITS[compression] | (reconnect ? 0x10 : 0);
          const bytes = encodeFrame(payload, { compression, reconnect });
          expect(toHex(bytes)).toBe(toHex(specFrame(flags, payload)));
          expect(feed(bytes, "all")).toEqual([{ terminal: false, compression, reconnect, payload: toHex(payload) }]);
        },
      ),
      { seed: SEED, numRuns: 1000 },
    );
  });

  it("encodeTerminalFrame round-trips status and body", () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 599 }), jsonBodyArb, (status, body) => {
        const frames = feed(encodeTerminalFrame(status, body), "all");
        expect(frames.length).toBe(1);
        expect(frames[0]!.terminal).toBe(true);
        expect(decodeTerminal(hex(frames[0]!.payload))).toEqual({ status, body: JSON.parse(JSON.stringify(body)) });
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });

  it("chunking invariance: any split of a stream of random frames gives the same frames", () => {
    fc.assert(
      fc.property(
        streamArb,
        fc.array(fc.integer({ min: 1, max: 64 }), { maxLength: 400 }),
        ({ bytes, views }, cuts) => {
          expect(feed(bytes, "all")).toEqual(views);
          expect(feed(bytes, cuts)).toEqual(views);
        },
      ),
      { seed: SEED, numRuns: 1000 },
    );
  });

  it("chunking invariance, one byte at a time", () => {
    fc.assert(
      fc.property(streamArb, ({ bytes, views }) => {
        expect(feed(bytes, "byte")).toEqual(views);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  /** Pushes `bytes` in the given chunks, drains, ends; reports anything thrown that is not a FrameError. */
  function onlyFrameErrors(bytes: Uint8Array, cuts: number[]): boolean {
    const parser = new FrameParser();
    try {
      let at = 0;
      for (const size of [...cuts, bytes.length]) {
        if (at >= bytes.length) break;
        parser.push(bytes.subarray(at, at + size));
        at += size;
        while (parser.next() !== null) {
          /* drain */
        }
      }
      parser.end();
      return true;
    } catch (e) {
      if (e instanceof FrameError && e.code === "bad_frame") return true;
      throw new Error(`a non-FrameError escaped: ${String(e)}`, { cause: e });
    }
  }

  it("random bytes only ever raise the typed FrameError", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 96 }),
        fc.array(fc.integer({ min: 1, max: 9 }), { maxLength: 20 }),
        (bytes, cuts) => onlyFrameErrors(bytes, cuts),
      ),
      { seed: SEED, numRuns: 2000 },
    );
  });

  it("random bytes behind plausible headers (small lengths, any flags) only raise FrameError", () => {
    const unit = fc
      .tuple(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 255 }), fc.uint8Array({ maxLength: 12 }))
      .map(([length, flags, rest]) => concatBytes([new Uint8Array([0, 0, length, flags]), rest]));
    fc.assert(
      fc.property(
        fc.array(unit, { maxLength: 8 }),
        fc.array(fc.integer({ min: 1, max: 5 }), { maxLength: 30 }),
        (units, cuts) => onlyFrameErrors(concatBytes(units), cuts),
      ),
      { seed: SEED, numRuns: 2000 },
    );
  });

  it("mutated valid streams (flipped bytes, truncation) only raise FrameError", () => {
    fc.assert(
      fc.property(
        streamArb,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
        fc.nat(),
        (stream, flips, cut) => {
          const bytes = stream.bytes.slice();
          for (const [at, v] of flips) if (bytes.length > 0) bytes[at % bytes.length] = v;
          const truncated = bytes.subarray(0, bytes.length === 0 ? 0 : cut % (bytes.length + 1));
          return onlyFrameErrors(truncated, [3, 1, 7]);
        },
      ),
      { seed: SEED, numRuns: 1000 },
    );
  });

  it("decodeTerminal on random payloads only raises FrameError", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (payload) => {
        try {
          decodeTerminal(payload);
        } catch (e) {
          if (!(e instanceof FrameError)) throw e;
        }
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });
});

describe("encodeFrameInPlace (the message is written after the head, not copied)", () => {
  it("gives the same bytes as encodeFrame for any payload, with and without the reconnect flag", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), fc.boolean(), (payload, reconnect) => {
        const inPlace = encodeFrameInPlace(
          (reserve) => {
            const out = Buffer.alloc(reserve + payload.length, 0xee);
            out.set(payload, reserve);
            return out;
          },
          { reconnect },
        );
        expect(Buffer.from(inPlace).equals(Buffer.from(encodeFrame(payload, { reconnect })))).toBe(true);
      }),
    );
  });

  it("refuses a message over the frame limit, as encodeFrame does", () => {
    expect(() => encodeFrameInPlace((reserve) => new Uint8Array(reserve + MAX_FRAME_LENGTH))).toThrow(/exceeds/);
  });
});
