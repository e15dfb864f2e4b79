/** The `svc bench` hash chain: any lost, duplicated, reordered or altered record is caught. */
import { describe, expect, it } from "vitest";
import { ChainError, ChainVerifier, ChainWriter, newRunId } from "../../../src/cli/bench/chain.js";
import { LatencyHistogram } from "../../../src/cli/bench/latency.js";

function records(n: number, writers = 1): { runId: Buffer; bodies: Buffer[] } {
  const runId = newRunId();
  const ws = Array.from({ length: writers }, (_, w) => new ChainWriter(runId, w, 100));
  const bodies: Buffer[] = [];
  for (let i = 0; i < n; i++) bodies.push(ws[i % writers]!.next(i));
  return { runId, bodies };
}

function verify(runId: Buffer, bodies: Buffer[], writers = 1): number {
  const v = new ChainVerifier(runId, writers);
  bodies.forEach((b, i) => v.check(b, i));
  return v.count;
}

describe("bench hash chain", () => {
  it("accepts an intact stream, with writers interleaved", () => {
    const { runId, bodies } = records(50, 3);
    expect(verify(runId, bodies, 3)).toBe(50);
  });

  it("rejects a lost record", () => {
    const { runId, bodies } = records(10);
    bodies.splice(4, 1);
    expect(() => verify(runId, bodies)).toThrow(/1 record\(s\) lost/);
  });

  it("rejects a duplicated record", () => {
    const { runId, bodies } = records(10);
    bodies.splice(5, 0, bodies[4]!);
    expect(() => verify(runId, bodies)).toThrow(/duplicated or reordered/);
  });

  it("rejects two records swapped", () => {
    const { runId, bodies } = records(10);
    [bodies[3], bodies[4]] = [bodies[4]!, bodies[3]!];
    expect(() => verify(runId, bodies)).toThrow(ChainError);
  });

  it("rejects an altered byte, and a record of another run", () => {
    const { runId, bodies } = records(10);
    const altered = bodies[6]!;
    altered[99] = altered[99]! ^ 1;
    expect(() => verify(runId, bodies)).toThrow(/altered/);
    const other = records(1).bodies;
    expect(() => verify(runId, other)).toThrow(/not from this run/);
  });
});

describe("bench latency histogram", () => {
  it("keeps min and max exact and percentiles within 1 %", () => {
    const h = new LatencyHistogram();
    for (let i = 1; i <= 1000; i++) h.add(i / 10);
    const s = h.summary();
    expect(s.count).toBe(1000);
    expect(s.min_ms).toBe(0.1);
    expect(s.max_ms).toBe(100);
    expect(Math.abs(s.p50_ms - 50) / 50).toBeLessThanOrEqual(0.01);
    expect(Math.abs(s.p99_ms - 99) / 99).toBeLessThanOrEqual(0.01);
    expect(s.p999_ms).toBeLessThanOrEqual(s.max_ms);
  });
});
