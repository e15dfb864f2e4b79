/**
 * An append whose outcome is unknown (docs/design/reliability.md, "Ack timeout"): the connection is
 * cut while batches are in flight. `svc append` must not re-send them: it exits 75, says what was
 * acknowledged and how many records are in doubt, and the stream holds a prefix of the input (each
 * record at most once) covering every acknowledged batch.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";
import { type FaultProxy, startFaultProxy } from "../helpers/fault-proxy.js";

let d: DataEnv;
let proxy: FaultProxy;

beforeAll(async () => {
  d = await dataEnv();
  proxy = await startFaultProxy(Number(new URL(d.lite.url).port));
});
afterAll(async () => {
  await proxy?.close();
  await d?.stop();
});

describe("svc append when the connection breaks mid-flight", () => {
  it("exits 75, reports what is known, re-sends nothing", async () => {
    let seen75 = false;
    for (let attempt = 0; attempt < 5 && !seen75; attempt++) {
      const uri = await d.newStream("doubt");
      const via = { SVC_ACCOUNT_ENDPOINT: proxy.url, SVC_BASIN_ENDPOINT: proxy.url };
      const lines = Array.from({ length: 200_000 }, (_, i) => `${i} ${"d".repeat(200)}`);
      const run = d.svc(["append", uri, "--linger", "1ms", "--max-batch-records", "100", "--acks", "text"], {
        env: via,
        stdin: lines.join("\n") + "\n",
        timeoutMs: 60_000,
      });
      await new Promise((r) => setTimeout(r, 600 + attempt * 200));
      proxy.cutAll();
      const r = await run;
      // `✓ appended 0..2 (3 records)` or `✓ appended 5 (1 record)`, both ends included: the next position follows.
      const acked = [...r.stderr.matchAll(/✓ appended (\d+)(?:\.\.(\d+))? \(/g)].map((m) => Number(m[2] ?? m[1]) + 1);
      const lastAck = acked.length > 0 ? acked[acked.length - 1]! : 0;
      const stored = (await d.svc(["read", uri, "-s", "0", "-e", "--template", "{body}"])).stdout;
      const got = stored === "" ? [] : stored.slice(0, -1).split("\n");
      expect(got).toEqual(lines.slice(0, got.length));
      expect(got.length).toBeGreaterThanOrEqual(lastAck);
      if (r.code === 75) {
        seen75 = true;
        console.log(r.stderr.split("\n").slice(-4).join("\n"));
        expect(r.stderr).toMatch(/the outcome of the append is unknown/);
        expect(r.stderr).toMatch(/in doubt: \d+ records? in \d+ batch/);
        if (acked.length > 0) expect(r.stderr).toContain(`(next position ${lastAck})`);
        expect(r.stderr).toMatch(/hint: nothing was re-sent/);
      } else {
        expect([0, 6]).toContain(r.code);
      }
    }
    expect(seen75).toBe(true);
  }, 180_000);
});
