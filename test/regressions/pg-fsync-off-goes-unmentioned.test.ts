/**
 * Found reviewing what "ack only after fsync" means on shared storage: a lite node on a
 * PostgreSQL server running with fsync=off (or full_page_writes=off) acknowledged appends as
 * durable without a word, though such a server loses (or tears) committed data when its host
 * crashes. Those are the database's settings, not lite's to change; now the node says so at
 * start, naming the setting, and a node on a server with both on says nothing.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SvcClient } from "../../src/client/client.js";
import { type Lite, startLite } from "../helpers/lite.js";
import { freshDatabase, startPostgres } from "../helpers/postgres.js";

let server: Awaited<ReturnType<typeof startPostgres>> | undefined;
let shared: Awaited<ReturnType<typeof freshDatabase>> | undefined;
const nodes: Lite[] = [];

beforeAll(async () => {
  server = await startPostgres(["-c", "fsync=off"]);
  const admin = new pg.Client({ connectionString: server.adminUrl });
  await admin.connect();
  await admin.query("CREATE DATABASE unsafe");
  await admin.end();
  shared = await freshDatabase();
}, 60_000);

afterAll(async () => {
  await Promise.all(nodes.map((n) => n.kill9().catch(() => undefined)));
  await shared?.drop();
  await server?.stop();
});

describe("a lite node on PostgreSQL", () => {
  it("warns at start when the server runs with fsync=off, and still serves", async () => {
    const node = await startLite({ postgres: `postgres://postgres@127.0.0.1:${server!.port}/unsafe` });
    nodes.push(node);
    expect(node.stderr()).toMatch(
      /warning: PostgreSQL at \S+ runs with fsync=off: a crash of its host can lose or corrupt records this node has acknowledged/,
    );
    expect(node.stderr()).not.toContain("full_page_writes");
    const c = new SvcClient({ accountEndpoint: node.url, basinEndpoint: node.url, accessToken: node.token });
    try {
      await c.basins.create(`unsafe-${process.pid}`);
      await c.basin(`unsafe-${process.pid}`).streams.create("s");
      const ack = await c
        .basin(`unsafe-${process.pid}`)
        .stream("s")
        .append({ records: [{ headers: [], body: new TextEncoder().encode("x") }] });
      expect(ack.end.seqNum).toBe(1);
    } finally {
      await c.close();
    }
  });

  it("says nothing when fsync and full_page_writes are on", async () => {
    const node = await startLite({ postgres: shared!.url });
    nodes.push(node);
    expect(node.stderr()).not.toMatch(/fsync|full_page_writes|warning/);
  });
});
