/**
 * Bug: on shared PostgreSQL, two concurrent creates of one basin through two nodes could both
 * answer 201 with different configs, and only one config was kept. The storage took a create
 * whose basin already existed with the same `created_at` (millisecond precision) for a replay
 * of the same create and overwrote it; two nodes creating in the same millisecond both
 * "succeeded". (87 of 150 pairs.)
 *
 * Expected: per name exactly one create answers 201, the other 409 resource_already_exists
 * (neither carries an svc-request-token, so neither is an idempotent replay); the stored config
 * is the winner's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeOf, PgCluster, type PgNode, show } from "../helpers/pg-cluster.js";

const PAIRS = 200;

let cluster: PgCluster;
let a: PgNode;
let b: PgNode;

beforeAll(async () => {
  cluster = await PgCluster.create();
  [a, b] = [await cluster.node(), await cluster.node()];
  for (const n of [a, b]) expect((await n.client.call("GET", "/v1/basins")).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await cluster?.close();
});

describe("concurrent creates of one basin through two nodes", () => {
  it("exactly one answers 201, the other 409 resource_already_exists", async () => {
    for (let i = 0; i < PAIRS; i++) {
      const basin = `twin-${process.pid}-${i}`;
      const [ra, rb] = await Promise.all([
        a.client.call("POST", "/v1/basins", { json: { basin, config: { create_stream_on_append: true } } }),
        b.client.call("POST", "/v1/basins", { json: { basin, config: { create_stream_on_read: true } } }),
      ]);
      const outcome = `pair ${i}: through A ${show(ra)}, through B ${show(rb)}`;
      expect([ra.status, rb.status].sort(), outcome).toEqual([201, 409]);
      const loser = ra.status === 409 ? ra : rb;
      expect(codeOf(loser), outcome).toBe("resource_already_exists");
      const stored = (await a.client.call("GET", `/v1/basins/${basin}`)).json();
      const wonByA = ra.status === 201;
      expect(
        { onAppend: stored.create_stream_on_append, onRead: stored.create_stream_on_read },
        `${outcome}: the stored config is the winner's`,
      ).toEqual({ onAppend: wonByA, onRead: !wonByA });
    }
  }, 60_000);
});
