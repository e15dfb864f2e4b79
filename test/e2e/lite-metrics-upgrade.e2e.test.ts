/**
 * A data dir written by an svc lite from before metrics were kept as sums: its metrics were
 * whole minute buckets (`b:<minute>`) and one `storage` list of every stream's stored bytes.
 * Opened by this svc, they become counts, samples and stored bytes: every metric set answers
 * as before the upgrade, appends after it add to them, and the old keys are gone.
 */
import { join } from "node:path";
import { open } from "lmdb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lite, type LiteClient, liteClient, startLite, uniqueBasin } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";

const dir = scratchDir("svc-metrics-upgrade-");
const basin = uniqueBasin("up");
let lite: Lite;
let c: LiteClient;
/** Three minutes ago, in the old layout: 2 appends of 40 bytes to s, 1 read, their requests. */
const t = Math.floor(Date.now() / 60_000) * 60 - 180;
const OLD_BUCKET = {
  t,
  ops: { append: 2, read: 1, "create-stream": 1 },
  basins: {
    [basin]: {
      ops: { append: 2, read: 1, "create-stream": 1 },
      appendOps: 2,
      appendBytes: 40,
      readOps: 1,
      readBytes: 40,
      storage: 40,
      streams: { s: 40 },
    },
  },
};

function rewriteAsOld(): void {
  const env = open({ path: join(dir, "data.mdb"), maxDbs: 12 });
  const metrics = env.openDB<unknown, string>({ name: "metrics", encoding: "json" });
  metrics.transactionSync(() => {
    for (const key of [...metrics.getKeys()]) metrics.removeSync(key);
    metrics.putSync(`b:${String(t).padStart(11, "0")}`, OLD_BUCKET);
    metrics.putSync("storage", [[basin, "s", 40]]);
  });
  env.close();
}

function oldKeys(): string[] {
  const env = open({ path: join(dir, "data.mdb"), maxDbs: 12 });
  const metrics = env.openDB<unknown, string>({ name: "metrics", encoding: "json" });
  const keys = [...metrics.getKeys()].filter((k) => k === "storage" || k.startsWith("b:"));
  env.close();
  return keys;
}

const sum = (values: [number, number][]): number => values.reduce((n, [, v]) => n + v, 0);

async function set(path: string, name: string): Promise<{ values: [number, number][] }> {
  const now = Math.floor(Date.now() / 1000);
  const r = await c.call("GET", path, { query: { set: name, start: now - 3600, end: now } });
  expect(r.status, r.text()).toBe(200);
  const m = r.json().values[0];
  return m.accumulation ?? m.gauge;
}

beforeAll(async () => {
  lite = await startLite({ dataDir: dir });
  c = liteClient(lite);
  expect((await c.call("POST", "/v1/basins", { json: { basin } })).status).toBe(201);
  expect((await c.call("POST", "/v1/streams", { basin, json: { stream: "s" } })).status).toBe(201);
  expect(await lite.stop()).toBe(0);
  rewriteAsOld();
  await lite.restart();
  c = liteClient(lite);
});

afterAll(async () => {
  await c?.close();
  await lite?.stop();
});

describe("metrics of a data dir from before the sums", () => {
  it("answer as the old buckets said, then add what comes after", async () => {
    expect(sum((await set(`/v1/metrics/${basin}`, "append-ops")).values)).toBe(2);
    expect(sum((await set(`/v1/metrics/${basin}`, "read-throughput")).values)).toBe(40);
    const storage = (await set(`/v1/metrics/${basin}/s`, "storage")).values;
    expect(storage.find(([ts]) => ts === t)).toEqual([t, 40]);
    expect(storage.at(-1)![1]).toBe(40);
    // 8 + 2 metered bytes more.
    expect((await c.call("POST", "/v1/streams/s/records", { basin, json: { records: [{ body: "xy" }] } })).status).toBe(
      200,
    );
    expect(sum((await set(`/v1/metrics/${basin}`, "append-ops")).values)).toBe(3);
    expect((await set(`/v1/metrics/${basin}`, "storage")).values.at(-1)![1]).toBe(50);
    expect((await set(`/v1/metrics/${basin}/s`, "storage")).values.at(-1)![1]).toBe(50);
    expect(await lite.stop()).toBe(0);
    expect(oldKeys()).toEqual([]);
    await lite.restart();
    c = liteClient(lite);
    expect((await set(`/v1/metrics/${basin}/s`, "storage")).values.at(-1)![1]).toBe(50);
  });
});
