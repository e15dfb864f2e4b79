/**
 * Bug: a list of basins in S2's dialect showed svc's scope `cloud:us-east-1` for every basin,
 * and so did the answer to a basin created in svc's dialect or with no scope: S2's API knows
 * only `aws:…` scopes (its BasinScope enum), so S2's SDK listing basins got answers S2's spec
 * rejects (16 of 5,810 answers of the SDK suite). A list carries no protocol header; lite took
 * it as svc's. Now a request from S2's clients (their User-Agent) is answered in S2's dialect:
 * every basin is shown with an S2 scope, whatever it was made with, and svc's requests still
 * see `cloud:us-east-1` for a basin made with S2's scope. On lmdb and on PostgreSQL.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lite, liteClient, startLite } from "../helpers/lite.js";
import { schemaErrors } from "../helpers/openapi.js";
import { freshDatabase } from "../helpers/postgres.js";
import { sdkClient } from "../helpers/s2-sdk.js";

const DOC = JSON.parse(readFileSync(resolve(import.meta.dirname, "../fixtures/s2/openapi.json"), "utf8")) as Record<
  string,
  never
>;
// The SDK's BasinInfo leaves `scope` out: its answer is read as the SDK receives it, with its User-Agent.
const SDK_PACKAGE = resolve(import.meta.dirname, "../../node_modules/@s2-dev/streamstore/package.json");
const SDK_VERSION = (JSON.parse(readFileSync(SDK_PACKAGE, "utf8")) as { version: string }).version;
const AGENTS = [`s2-sdk-typescript/${SDK_VERSION}`, "s2-cli/0.42.7 (channel=cargo)"];

describe.each(["lmdb", "postgres"] as const)("basin scopes in each dialect, on %s", (storage) => {
  let lite: Lite;
  let db: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  const prefix = `scope-${process.pid}`;

  beforeAll(async () => {
    db = storage === "postgres" ? await freshDatabase() : undefined;
    lite = await startLite(db ? { postgres: db.url } : {});
  }, 60_000);
  afterAll(async () => {
    await lite?.stop();
    await db?.drop();
  });

  it("S2's SDK lists every basin with an S2 scope; svc's requests see svc's", async () => {
    const c = liteClient(lite);
    // Made in svc's dialect, with svc's scope and with none.
    const svcMade = await c.call("POST", "/v1/basins", {
      json: { basin: `${prefix}-a`, scope: "cloud:us-east-1" },
      headers: { "svc-request-token": "a" },
    });
    expect([svcMade.status, svcMade.json().scope]).toEqual([201, "cloud:us-east-1"]);
    expect((await c.call("PUT", `/v1/basins/${prefix}-b`, { json: {} })).status).toBe(201);
    const s2 = sdkClient(lite);
    await s2.basins.create({ basin: `${prefix}-c` });
    expect((await s2.basins.list({ prefix })).basins.map((b) => b.name)).toEqual(
      ["a", "b", "c"].map((x) => `${prefix}-${x}`),
    );
    for (const agent of AGENTS) {
      const res = await fetch(`${lite.url}/v1/basins?prefix=${prefix}`, {
        headers: { authorization: `Bearer ${lite.token}`, "user-agent": agent },
      });
      const body = (await res.json()) as { basins: { scope: string }[] };
      expect(
        body.basins.map((b) => b.scope),
        agent,
      ).toEqual(["aws:us-east-1", "aws:us-east-1", "aws:us-east-1"]);
      expect(schemaErrors(body, { $ref: "#/components/schemas/ListBasinsResponse" }, DOC), agent).toEqual([]);
    }
    const raw = await c.call("GET", `/v1/basins?prefix=${prefix}`);
    expect((raw.json().basins as { scope: string }[]).map((b) => b.scope)).toEqual([
      "cloud:us-east-1",
      "cloud:us-east-1",
      "cloud:us-east-1",
    ]);
  });
});
