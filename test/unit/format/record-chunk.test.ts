/** The header of a file's pieces (format/record-chunk.ts): written, read back, refused when malformed. */
import { describe, expect, it } from "vitest";
import { chunkHeader, chunkMarkOf, chunkRoom } from "../../../src/format/record-chunk.js";
import { meteredSize } from "../../../src/rules/records.js";
import { LIMITS } from "../../../src/types.js";

const h = (name: string, value: string) => ({ name: Buffer.from(name), value: Buffer.from(value) });
const SHA = "a".repeat(64);

describe("chunk headers", () => {
  it("read back what they say", () => {
    expect(chunkMarkOf([chunkHeader({ id: "0123456789abcdef", index: 7 })])).toEqual({
      id: "0123456789abcdef",
      index: 7,
    });
    const last = { id: "0123456789abcdef", index: 2 ** 53 - 1, last: { size: 2 ** 53 - 1, sha256: SHA } };
    expect(chunkMarkOf([h("other", "x"), chunkHeader(last)])).toEqual(last);
    expect(chunkMarkOf([h("other", "x")])).toBeUndefined();
  });

  it("a malformed or repeated header is said so", () => {
    for (const v of [
      "",
      "id",
      "id x",
      "id 1 last",
      "id 1 last 5",
      `id 1 last 5 ${"A".repeat(64)}`,
      "a b 1",
      `id 1 final 5 ${SHA}`,
    ])
      expect(chunkMarkOf([h("svc-chunk", v)]), v).toMatch(/does not read as/);
    expect(chunkMarkOf([h("svc-chunk", "id 1"), h("svc-chunk", "id 2")])).toMatch(/2 svc-chunk headers/);
  });

  it("every piece fits the size asked for, its last one's header included, beside the -H headers", () => {
    for (const headers of [[], [h("content-type", "application/x-tar"), h("k", "v".repeat(1000))]]) {
      const room = chunkRoom(LIMITS.maxRecordBytes, headers);
      const last = chunkHeader({
        id: "0123456789abcdef",
        index: 2 ** 53 - 1,
        last: { size: 2 ** 53 - 1, sha256: SHA },
      });
      const size = meteredSize({ headers: [last, ...headers], body: new Uint8Array(room) });
      expect(size).toBeLessThanOrEqual(LIMITS.maxRecordBytes);
      expect(LIMITS.maxRecordBytes - size).toBeLessThan(32);
    }
    expect(chunkRoom(100, [])).toBeLessThan(1);
  });
});
