/**
 * Bug: a node on PostgreSQL bounds each group of appends it sends in one statement to 8 MiB of
 * input (docs/architecture.md, "Group commit"), but counted only the records' bodies (plus 16
 * bytes each): appends whose bytes are in their headers went out together whatever their size.
 * Twenty appends of one record with a 1 MiB header each, queued behind a statement in flight,
 * went out as one statement of 20 MiB; the in-flight budget lets up to 128 MiB queue so.
 *
 * Reproduced on a scripted database (test/helpers/scripted-shared-log.ts). Expected: no group
 * of several appends carries more than 8 MiB of records.
 */
import { describe, expect, it } from "vitest";
import { ScriptedSharedLog, sharedStream } from "../helpers/scripted-shared-log.js";

const enc = new TextEncoder();

describe("a group of appends on PostgreSQL", () => {
  it("carries at most 8 MiB, headers counted", async () => {
    const log = new ScriptedSharedLog();
    log.holdAppends = true;
    const { stream } = sharedStream(log);
    const big = { name: enc.encode("h"), value: new Uint8Array((1 << 20) - 64) };
    const acks = [stream.append({ records: [{ headers: [], body: new Uint8Array(1) }] })];
    for (let i = 0; i < 20; i++) acks.push(stream.append({ records: [{ headers: [big], body: new Uint8Array(0) }] }));
    while (log.waiting > 0) await log.answer();
    await Promise.all(acks);
    const sizes = log.groups.map((g) => g.reduce((n, p) => n + p.data.length, 0));
    expect(log.groups.reduce((n, g) => n + g.length, 0)).toBe(21);
    for (const [i, g] of log.groups.entries())
      if (g.length > 1) expect(sizes[i], `group ${i} of ${g.length} appends, in bytes`).toBeLessThanOrEqual(8 << 20);
  });
});
