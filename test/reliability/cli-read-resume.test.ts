/**
 * `svc read` across broken connections (docs/design/reliability.md, "Read resume"): a fault proxy
 * between the CLI and lite cuts the read session again and again at random byte offsets
 * (mid-frame included); the output must still hold every seq num exactly once, in order, and
 * `-n` must be honoured across reconnects.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";
import { type FaultProxy, startFaultProxy } from "../helpers/fault-proxy.js";
import { scratchDir } from "../helpers/scratch.js";

const RECORDS = 10_000;
let d: DataEnv;
let proxy: FaultProxy;
let uri: string;

beforeAll(async () => {
  d = await dataEnv();
  uri = await d.newStream("resume");
  const file = join(scratchDir("svc-resume-"), "in.txt");
  // About 1 KB records: the read carries ~10 MB in catch-up frames of ~1 MB.
  writeFileSync(
    file,
    Array.from({ length: RECORDS }, (_, i) => `${i} ${randomBytes(500).toString("hex")}`).join("\n") + "\n",
  );
  expect((await d.svc(["append", uri, "-i", file, "-q"])).code).toBe(0);
  proxy = await startFaultProxy(Number(new URL(d.lite.url).port));
}, 60_000);
afterAll(async () => {
  await proxy?.close();
  await d?.stop();
});

describe("svc read through a faulty connection", () => {
  it("delivers every record exactly once, in order, with -n honoured", async () => {
    const via = { SVC_ACCOUNT_ENDPOINT: proxy.url, SVC_BASIN_ENDPOINT: proxy.url };
    const count = RECORDS - 7;
    const cuts = proxy.cuts;
    // Every connection is cut after a random 1.2–2.2 MB from the server, mid-frame almost
    // always; a catch-up frame is ~1 MB, so each connection still makes progress. The client
    // receives the whole budget before the cut: with a reset, what the kernel still buffered
    // is lost too, and a server faster than this reader buffered more than a frame.
    proxy.cutEachConnectionAfter(() => 1_200_000 + Math.floor(Math.random() * 1_000_000), { delivered: true });
    // A cut before the first whole frame is a failure without progress; reads resume after
    // `--retries` of those in a row, so a link this faulty needs more than the default 2.
    const r = await d.svc(
      ["read", uri, "-s", "0", "-n", String(count), "--template", "{seq_num} {body}", "-v", "--retries", "10"],
      { env: via, timeoutMs: 120_000 },
    );
    proxy.cutEachConnectionAfter(undefined);
    expect(
      r.code,
      r.stderr
        .split("\n")
        .filter((l) => !l.includes("reconnecting"))
        .join("\n")
        .slice(-2000),
    ).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines.pop()).toBe("");
    expect(lines.length).toBe(count);
    lines.forEach((l, i) => {
      const [seq, first] = l.split(" ");
      if (seq !== String(i) || first !== String(i)) throw new Error(`line ${i}: ${l.slice(0, 40)}`);
    });
    console.log(
      `cuts during the read: ${proxy.cuts - cuts}; reconnects logged: ${(r.stderr.match(/reconnecting/g) ?? []).length}`,
    );
    expect(proxy.cuts - cuts).toBeGreaterThan(0);
  }, 120_000);
});
