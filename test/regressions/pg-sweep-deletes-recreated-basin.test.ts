/**
 * Bug: on shared PostgreSQL, a basin created again could disappear without any DELETE. The
 * node running the periodic sweep worked from the list of basins it read at the start of its
 * sweep and removed a deleted basin by name once its grace period was over; when another node
 * had meanwhile removed that basin (a node sweeps at once after a deletion made through it)
 * and a third node had created it again, the sweeping node removed the NEW basin: the create
 * answered 201 and a few seconds later the basin was 404. (2 of 4 runs.)
 *
 * Nodes: P runs the periodic sweep (started first, so it takes the sweep) and reaches the
 * database through a delaying proxy (100 ms each way): its sweep is slow, and basins named
 * before the deleted one make the time between its list and its removal longer. Y (50 ms away)
 * takes the DELETE and removes the basin after the grace period; Z creates it again as soon as
 * it may.
 *
 * Expected: the basin created again lives on (200 through every node LIVES_MS later).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgCluster, type PgNode, show, sleep } from "../helpers/pg-cluster.js";

const ENV = { SVC_LITE_DELETE_GRACE_MS: "1000", SVC_LITE_SWEEP_MS: "100" };
const ROUNDS = 2;
/** How long the basin created again is watched. */
const LIVES_MS = 4_000;
/** Basins listed before the deleted ones: each makes every sweep of P longer. */
const FILLERS = 4;

let cluster: PgCluster;
let p: PgNode;
let y: PgNode;
let z: PgNode;

beforeAll(async () => {
  cluster = await PgCluster.create();
  p = await cluster.node({ delayMs: 100, env: ENV });
  await sleep(1_000); // P takes the periodic sweep before any other node exists
  y = await cluster.node({ delayMs: 50, env: ENV });
  z = await cluster.node({ env: ENV });
  for (let i = 0; i < FILLERS; i++)
    expect((await z.client.call("POST", "/v1/basins", { json: { basin: `aa-fill-${process.pid}-${i}` } })).status).toBe(
      201,
    );
}, 60_000);

afterAll(async () => {
  await cluster?.close();
});

describe("a basin deleted and created again", () => {
  it("is not removed by a sweep that listed the deleted one", async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const basin = `zz-again-${process.pid}-${i}`;
      expect((await y.client.call("POST", "/v1/basins", { json: { basin } })).status).toBe(201);
      const del = await y.client.call("DELETE", `/v1/basins/${basin}`);
      expect(del.status, show(del)).toBe(202);
      // Created again through Z as soon as the name is free.
      const deadline = Date.now() + 15_000;
      let again = await z.client.call("POST", "/v1/basins", { json: { basin } });
      while (again.status === 409 && Date.now() < deadline) {
        await sleep(20);
        again = await z.client.call("POST", "/v1/basins", { json: { basin } });
      }
      expect(again.status, `round ${i}: creating ${basin} again: ${show(again)}`).toBe(201);
      await sleep(LIVES_MS);
      for (const [node, n] of [
        ["Z", z],
        ["Y", y],
        ["P", p],
      ] as const) {
        const r = await n.client.call("GET", `/v1/basins/${basin}`);
        expect(r.status, `round ${i}: ${basin}, created again ${LIVES_MS} ms ago, through ${node}: ${show(r)}`).toBe(
          200,
        );
      }
    }
  }, 60_000);
});
