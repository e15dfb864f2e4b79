/**
 * Bug: a node on shared PostgreSQL that loads a stream while another node appends to it could
 * bring back an old fencing token or trim point. Loading read the stored state (tail, token,
 * trim point) and the stream's last batch in two separate queries; when an append through
 * another node committed between them, the load took the newer tail from the batch and kept
 * the older token and trim point from the state, and its next append wrote them back for good:
 *
 *   - fence: node A installs `t1` (with `fencing_token: "t0"`, acked at seq 3) while node B
 *     loads the stream; B's next append stores `t0` again, and then A's append with `t1` is
 *     refused 412 `{"fencing_token_mismatch":"t0"}` while B accepts `t0`: a writer that was
 *     fenced out writes again.
 *   - trim: A trims to 2 while B loads; B's next append stores trim point 0 again and the
 *     trimmed records come back, for good.
 *
 * Node B reaches the database through a delaying proxy (100 ms each way), so its load spans
 * a few hundred ms; A's command is sent at several offsets into it.
 *
 * Expected: once `fence t1` is acknowledged, an append with the superseded token `t0` is
 * refused 412 on every node and `t1` is accepted; once a trim is acknowledged and its records
 * have disappeared from reads (within TRIM_SEEN_MS), they never come back, on any node
 * (a node started afterwards included).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  append,
  base64Record,
  fenceRecord,
  PgCluster,
  type PgNode,
  show,
  sleep,
  trimRecord,
} from "../helpers/pg-cluster.js";

/** Offsets (ms) after B's first request for a stream at which A sends its command. */
const OFFSETS = [400, 350, 450, 300, 500, 425, 375, 250, 550];
/** How long a trim may take to show in reads on every node. */
const TRIM_SEEN_MS = 3_000;
const BASIN = `load-race-${process.pid}`;

let cluster: PgCluster;
let a: PgNode;
let b: PgNode;
/** Started before any stream of the rounds exists: its first request for each is a load. */
let c: PgNode;

beforeAll(async () => {
  cluster = await PgCluster.create();
  a = await cluster.node();
  b = await cluster.node({ delayMs: 100 });
  c = await cluster.node();
  const made = await a.client.call("POST", "/v1/basins", { json: { basin: BASIN } });
  expect(made.status).toBe(201);
  // Warm B up (its connections, the token check) on a stream of its own.
  expect((await a.client.call("POST", "/v1/streams", { basin: BASIN, json: { stream: "warm" } })).status).toBe(201);
  expect((await b.client.call("GET", "/v1/streams/warm/records/tail", { basin: BASIN })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await cluster?.close();
});

async function createStream(name: string): Promise<void> {
  const r = await a.client.call("POST", "/v1/streams", {
    basin: BASIN,
    json: { stream: name, config: { retention_policy: { infinite: {} } } },
  });
  expect(r.status, show(r)).toBe(201);
}

/** B's first request for `name` (a check-tail), with A's `command` sent `offset` ms into it. */
async function duringLoad(name: string, offset: number, command: () => Promise<void>): Promise<void> {
  const load = b.client.call("GET", `/v1/streams/${name}/records/tail`, { basin: BASIN });
  await sleep(offset);
  await command();
  const r = await load;
  expect(r.status, show(r)).toBe(200);
}

describe("a node loading a stream that another node appends to", () => {
  it("never brings back a superseded fencing token", async () => {
    for (const [i, offset] of OFFSETS.entries()) {
      const s = `fence-${i}`;
      await createStream(s);
      expect((await append(a.client, BASIN, s, [fenceRecord("t0")])).status).toBe(200);
      expect((await append(a.client, BASIN, s, [{ body: "r1" }, { body: "r2" }])).status).toBe(200);
      await duringLoad(s, offset, async () => {
        const r = await append(a.client, BASIN, s, [fenceRecord("t1")], { fencing_token: "t0" });
        expect(r.status, show(r)).toBe(200);
        expect(r.json().start.seq_num).toBe(3);
      });
      const plain = await append(b.client, BASIN, s, [{ body: "from b" }]);
      expect(plain.status, show(plain)).toBe(200);

      const current = await append(a.client, BASIN, s, [{ body: "with t1" }], { fencing_token: "t1" });
      expect(
        current.status,
        `round ${i} (offset ${offset} ms): append with the current token t1 through A: ${show(current)}`,
      ).toBe(200);
      for (const [node, n] of [
        ["B", b],
        ["A", a],
        ["a fresh node", c],
      ] as const) {
        const stale = await append(n.client, BASIN, s, [{ body: "with t0" }], { fencing_token: "t0" });
        expect(
          stale.status,
          `round ${i} (offset ${offset} ms): append with the superseded token t0 through ${node}: ${show(stale)}`,
        ).toBe(412);
        expect(stale.json()).toEqual({ fencing_token_mismatch: "t1" });
      }
    }
  }, 60_000);

  it("never brings back trimmed records", async () => {
    for (const [i, offset] of OFFSETS.entries()) {
      const s = `trim-${i}`;
      await createStream(s);
      // One batch: a trim to 2 cannot remove it physically, so only the trim point hides 0 and 1.
      expect(
        (
          await append(a.client, BASIN, s, [base64Record("r0"), base64Record("r1"), base64Record("r2")], {
            format: "base64",
          })
        ).status,
      ).toBe(200);
      await duringLoad(s, offset, async () => {
        const r = await append(a.client, BASIN, s, [trimRecord(2)], { format: "base64" });
        expect(r.status, show(r)).toBe(200);
        expect(r.json().start.seq_num).toBe(3);
      });
      const plain = await append(b.client, BASIN, s, [base64Record("from b")], { format: "base64" });
      expect(plain.status, show(plain)).toBe(200);

      const firstSeen = async (n: PgNode): Promise<number[]> => {
        const r = await n.client.call("GET", `/v1/streams/${s}/records`, { basin: BASIN, query: { seq_num: 0 } });
        expect(r.status, show(r)).toBe(200);
        return (r.json().records as { seq_num: number }[]).map((x) => x.seq_num);
      };
      const deadline = Date.now() + TRIM_SEEN_MS;
      let seen: number[][] = [];
      for (;;) {
        seen = [await firstSeen(a), await firstSeen(b)];
        if (seen.every((x) => x[0] === 2) || Date.now() > deadline) break;
        await sleep(100);
      }
      expect(
        seen,
        `round ${i} (offset ${offset} ms): records read from seq 0 through A and B, ${TRIM_SEEN_MS} ms after the trim to 2`,
      ).toEqual([
        [2, 3, 4],
        [2, 3, 4],
      ]);
      await sleep(500);
      expect(
        [await firstSeen(a), await firstSeen(b), await firstSeen(c)],
        `round ${i}: read again through A, B and a fresh node`,
      ).toEqual([
        [2, 3, 4],
        [2, 3, 4],
        [2, 3, 4],
      ]);
    }
  }, 60_000);
});
