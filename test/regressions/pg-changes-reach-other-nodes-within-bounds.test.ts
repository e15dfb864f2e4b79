/**
 * The stated bounds on how stale a node on shared PostgreSQL may be (caches in front of the
 * shared database are allowed only with a stated, bounded staleness):
 *
 *   - an access token revoked through node A is refused on node B within REVOKE_SEEN_MS,
 *     although B has just served requests with it;
 *   - a reconfiguration and a deletion of a stream made through A are observed through B within
 *     CHANGE_SEEN_MS, although B has the stream loaded (and, for the deletion, a read waiting
 *     on it); a trim is carried out by A's sweep a sweep period after it (protocol.md §7.7;
 *     A sweeps every SWEEP_MS), and observed through B within CHANGE_SEEN_MS of that.
 *
 * Each change is made once B has warmed up on what it changes; B is then polled, and the first
 * answer that shows the change must come within the bound, and every answer after it too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LiteClient, liteClient, type Reply } from "../helpers/lite.js";
import {
  append,
  base64Record,
  codeOf,
  PgCluster,
  type PgNode,
  show,
  sleep,
  trimRecord,
} from "../helpers/pg-cluster.js";

/** A revocation through one node is refused on every node within this. */
const REVOKE_SEEN_MS = 1_000;
/** A trim, reconfiguration or deletion through one node is observed on every node within this. */
const CHANGE_SEEN_MS = 1_000;
/** A's sweep period: a trim made through A is carried out that long after it. */
const SWEEP_MS = 200;
/** How long answers keep being checked after the change was first seen. */
const STAYS_MS = 500;
const POLL_MS = 25;
const BASIN = `bounds-${process.pid}`;

let cluster: PgCluster;
let a: PgNode;
let b: PgNode;

beforeAll(async () => {
  cluster = await PgCluster.create();
  a = await cluster.node({ env: { SVC_LITE_SWEEP_MS: String(SWEEP_MS) } });
  b = await cluster.node();
  expect((await a.client.call("POST", "/v1/basins", { json: { basin: BASIN } })).status).toBe(201);
}, 60_000);

afterAll(async () => {
  await cluster?.close();
});

/**
 * Polls `probe` from `since` until it says the change is seen; it must be seen within `boundMs`
 * and stay seen for STAYS_MS. `probe` returns undefined when the change shows, else what it saw.
 */
async function seenWithin(
  what: string,
  since: number,
  boundMs: number,
  probe: () => Promise<string | undefined>,
): Promise<void> {
  let last: string | undefined;
  for (;;) {
    const started = Date.now();
    last = await probe();
    if (last === undefined) break;
    expect(
      started - since,
      `${what}: still not seen ${started - since} ms after the change (bound ${boundMs} ms): ${last}`,
    ).toBeLessThanOrEqual(boundMs);
    await sleep(POLL_MS);
  }
  const until = Date.now() + STAYS_MS;
  while (Date.now() < until) {
    expect(await probe(), `${what}: seen, then not any more`).toBeUndefined();
    await sleep(POLL_MS);
  }
}

async function stream(name: string): Promise<void> {
  const r = await a.client.call("POST", "/v1/streams", {
    basin: BASIN,
    json: { stream: name, config: { retention_policy: { infinite: {} } } },
  });
  expect(r.status, show(r)).toBe(201);
}

describe("changes made through one node reach another within the stated bounds", () => {
  it(`a revoked access token is refused within ${REVOKE_SEEN_MS} ms`, async () => {
    await stream("rev");
    const issued = await a.client.call("POST", "/v1/access-tokens", {
      json: {
        id: `rev-${process.pid}`,
        scope: { basins: { prefix: "" }, streams: { prefix: "" }, op_groups: { stream: { read: true, write: true } } },
      },
    });
    expect(issued.status, show(issued)).toBe(201);
    const user: LiteClient = liteClient({ url: b.lite.url, token: issued.json().access_token as string });
    try {
      const tail = (): Promise<Reply> => user.call("GET", "/v1/streams/rev/records/tail", { basin: BASIN });
      for (let i = 0; i < 5; i++) expect((await tail()).status).toBe(200);
      const revoked = await a.client.call("DELETE", `/v1/access-tokens/rev-${process.pid}`);
      expect(revoked.status, show(revoked)).toBe(204);
      await seenWithin("the revocation, through B", Date.now(), REVOKE_SEEN_MS, async () => {
        const r = await tail();
        return r.status === 401 || r.status === 403 ? undefined : show(r);
      });
    } finally {
      await user.close();
    }
  });

  it(`a trim is observed within ${SWEEP_MS} + ${CHANGE_SEEN_MS} ms`, async () => {
    await stream("trim");
    for (let i = 0; i < 5; i++)
      expect((await append(a.client, BASIN, "trim", [base64Record(`r${i}`)], { format: "base64" })).status).toBe(200);
    const first = async (): Promise<number | string> => {
      const r = await b.client.call("GET", "/v1/streams/trim/records", { basin: BASIN, query: { seq_num: 0 } });
      return r.status === 200 ? (r.json().records[0]?.seq_num as number) : show(r);
    };
    expect(await first()).toBe(0);
    const trimmed = await append(a.client, BASIN, "trim", [trimRecord(3)], { format: "base64" });
    expect(trimmed.status, show(trimmed)).toBe(200);
    await seenWithin("the trim to 3, through B", Date.now(), SWEEP_MS + CHANGE_SEEN_MS, async () => {
      const f = await first();
      return f === 3 ? undefined : `a read from 0 starts at ${f}`;
    });
  });

  it(`a reconfiguration is observed within ${CHANGE_SEEN_MS} ms`, async () => {
    await stream("conf");
    expect((await append(b.client, BASIN, "conf", [{ body: "x" }])).status).toBe(200);
    const patched = await a.client.call("PATCH", "/v1/streams/conf", {
      basin: BASIN,
      json: { timestamping: { mode: "client-require" } },
    });
    expect(patched.status, show(patched)).toBe(200);
    await seenWithin("timestamping client-require, through B", Date.now(), CHANGE_SEEN_MS, async () => {
      const r = await append(b.client, BASIN, "conf", [{ body: "no timestamp" }]);
      return r.status === 422 ? undefined : `an append without a timestamp: ${show(r)}`;
    });
  });

  it(`a deletion is observed within ${CHANGE_SEEN_MS} ms, by a read waiting on the stream too`, async () => {
    await stream("del");
    expect((await append(b.client, BASIN, "del", [{ body: "x" }])).status).toBe(200);
    const waiting = b.client
      .call("GET", "/v1/streams/del/records", { basin: BASIN, query: { seq_num: 1, wait: 30 } })
      .then((r) => ({ r, at: Date.now() }));
    await sleep(300);
    const deleted = await a.client.call("DELETE", "/v1/streams/del", { basin: BASIN });
    expect(deleted.status, show(deleted)).toBe(202);
    const since = Date.now();
    await seenWithin("the deletion, through B", since, CHANGE_SEEN_MS, async () => {
      const tail = await b.client.call("GET", "/v1/streams/del/records/tail", { basin: BASIN });
      const appended = await b.client.call("POST", "/v1/streams/del/records", {
        basin: BASIN,
        json: { records: [{ body: "late" }] },
      });
      const gone = (r: Reply): boolean =>
        r.status === 404 || (r.status === 409 && codeOf(r) === "stream_deletion_pending");
      return gone(tail) && gone(appended) ? undefined : `check-tail ${show(tail)}, append ${show(appended)}`;
    });
    const { r, at } = await waiting;
    expect(
      at - since,
      `the read waiting through B ended ${at - since} ms after the deletion: ${show(r)}`,
    ).toBeLessThanOrEqual(CHANGE_SEEN_MS);
    expect(r.status === 200 ? r.json().records : [], "records given to the waiting read").toEqual([]);
  }, 40_000);
});
