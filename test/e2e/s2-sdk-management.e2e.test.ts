/**
 * S2's TypeScript SDK (`@s2-dev/streamstore`, pinned) drives svc lite, unchanged, through its
 * management API: basins (create, list, ensure, reconfigure, delete), streams, access tokens
 * with scopes, metrics, locations, and errors with the status and code the SDK reports. The
 * SDK speaks S2's names (`s2-basin`, `s2-request-token`, `s2-provision-result`); lite answers
 * them (wire/dialect.ts). Runs in both projects: lite on lmdb and on PostgreSQL.
 */

import { AppendInput, AppendRecord, type S2 } from "@s2-dev/streamstore";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Lite, startLite, uniqueBasin } from "../helpers/lite.js";
import { reported, sdkClient, sdkError } from "../helpers/s2-sdk.js";

let lite: Lite;
let s2: S2;
beforeAll(async () => {
  lite = await startLite({ env: { SVC_LITE_SWEEP_MS: "200", SVC_LITE_DELETE_GRACE_MS: "1500" } });
  s2 = sdkClient(lite);
});
afterAll(async () => {
  expect(await lite.stop()).toBe(0);
});

const server = (status: number, code: string) => ({ status, code, origin: "server" });

describe("basins through S2's SDK", () => {
  it("creates, lists, reads, reconfigures and deletes a basin", async () => {
    const name = uniqueBasin("sdk-basin");
    const info = await s2.basins.create({
      basin: name,
      config: { createStreamOnAppend: true, defaultStreamConfig: { retentionPolicy: { ageSecs: 3600 } } },
    });
    expect(info.name).toBe(name);
    expect(info.deletedAt).toBeNull();
    expect(info.createdAt).toBeInstanceOf(Date);
    const listed = await s2.basins.list({ prefix: name });
    expect(listed.basins.map((b) => b.name)).toEqual([name]);
    expect(listed.hasMore).toBe(false);
    const config = await s2.basins.getConfig({ basin: name });
    expect(config.createStreamOnAppend).toBe(true);
    expect(config.defaultStreamConfig?.retentionPolicy).toEqual({ ageSecs: 3600 });
    const after = await s2.basins.reconfigure({
      basin: name,
      createStreamOnRead: true,
      defaultStreamConfig: { timestamping: { mode: "arrival" } },
    });
    expect([after.createStreamOnAppend, after.createStreamOnRead]).toEqual([true, true]);
    expect(after.defaultStreamConfig?.timestamping?.mode).toBe("arrival");
    expect(after.defaultStreamConfig?.retentionPolicy).toEqual({ ageSecs: 3600 });
    await s2.basins.delete({ basin: name });
    const all = [];
    for await (const b of s2.basins.listAll({ prefix: name, includeDeleted: true })) all.push(b);
    expect(all.map((b) => [b.name, b.deletedAt instanceof Date])).toEqual([[name, true]]);
    const live = [];
    for await (const b of s2.basins.listAll({ prefix: name })) live.push(b);
    expect(live).toEqual([]);
    expect(reported(await sdkError(s2.basins.create({ basin: name })))).toEqual(server(409, "basin_deletion_pending"));
    // Deletion is asynchronous (§2.2 A6): the basin answers 404 once its cleanup is done.
    await eventually(
      () =>
        s2.basins.getConfig({ basin: name }).then(
          () => false,
          (e: { status?: number }) => e.status === 404,
        ),
      15_000,
    );
  });

  it("ensures a basin: created, then noop, then updated (read from s2-provision-result)", async () => {
    const name = uniqueBasin("sdk-ensure");
    expect((await s2.basins.ensure({ basin: name })).result).toBe("created");
    expect((await s2.basins.ensure({ basin: name })).result).toBe("noop");
    const changed = await s2.basins.ensure({ basin: name, config: { createStreamOnAppend: true } });
    expect([changed.result, changed.basin.name]).toEqual(["updated", name]);
    expect((await s2.basins.getConfig({ basin: name })).createStreamOnAppend).toBe(true);
  });

  it("pages through basins", async () => {
    const prefix = uniqueBasin("sdk-page").slice(0, 30);
    const names = [`${prefix}-a`, `${prefix}-b`, `${prefix}-c`];
    for (const basin of names) await s2.basins.create({ basin });
    const page = await s2.basins.list({ prefix, limit: 2 });
    expect([page.basins.map((b) => b.name), page.hasMore]).toEqual([names.slice(0, 2), true]);
    const rest = await s2.basins.list({ prefix, startAfter: names[1] });
    expect([rest.basins.map((b) => b.name), rest.hasMore]).toEqual([names.slice(2), false]);
    const all = [];
    for await (const b of s2.basins.listAll({ prefix, limit: 1 })) all.push(b.name);
    expect(all).toEqual(names);
  });

  it("reports errors with the status and code the server sent", async () => {
    const name = uniqueBasin("sdk-errors");
    await s2.basins.create({ basin: name });
    expect(reported(await sdkError(s2.basins.create({ basin: name })))).toEqual(server(409, "resource_already_exists"));
    expect(reported(await sdkError(s2.basins.getConfig({ basin: uniqueBasin("sdk-missing") })))).toEqual(
      server(404, "basin_not_found"),
    );
    expect(reported(await sdkError(s2.basins.delete({ basin: uniqueBasin("sdk-missing") })))).toEqual(
      server(404, "basin_not_found"),
    );
    expect(reported(await sdkError(s2.basins.getConfig({ basin: "Not-A-Basin" })))).toEqual(server(400, "bad_path"));
    const zeroAge = s2.basins.create({
      basin: uniqueBasin("sdk-zero"),
      config: { defaultStreamConfig: { retentionPolicy: { ageSecs: 0 } } },
    });
    expect(reported(await sdkError(zeroAge))).toEqual(server(422, "invalid"));
    const wrongToken = sdkClient(lite, "not-a-token");
    expect(reported(await sdkError(wrongToken.basins.list()))).toEqual(server(401, "authn"));
  });
});

describe("streams through S2's SDK", () => {
  let basin: string;
  beforeAll(async () => {
    basin = uniqueBasin("sdk-streams");
    await s2.basins.create({ basin });
  });

  it("creates, lists, reconfigures, ensures and deletes streams (names with / too)", async () => {
    const b = s2.basin(basin);
    const made = await b.streams.create({
      stream: "orders/eu",
      config: { storageClass: "standard", retentionPolicy: { infinite: {} } },
    });
    expect(made.name).toBe("orders/eu");
    expect(made.createdAt).toBeInstanceOf(Date);
    const config = await b.streams.getConfig({ stream: "orders/eu" });
    expect([config.storageClass, config.retentionPolicy]).toEqual(["standard", { infinite: {} }]);
    const changed = await b.streams.reconfigure({
      stream: "orders/eu",
      timestamping: { mode: "client-require", uncapped: true },
      deleteOnEmpty: { minAgeSecs: 60 },
    });
    expect([
      changed.timestamping?.mode,
      changed.timestamping?.uncapped,
      changed.deleteOnEmpty?.minAgeSecs,
      changed.storageClass,
    ]).toEqual(["client-require", true, 60, "standard"]);
    expect((await b.streams.ensure({ stream: "orders/eu" })).result).toBe("noop");
    expect((await b.streams.ensure({ stream: "orders/us" })).result).toBe("created");
    expect((await b.streams.ensure({ stream: "orders/us", config: { storageClass: "standard" } })).result).toBe(
      "updated",
    );
    const listed = await b.streams.list({ prefix: "orders/" });
    expect(listed.streams.map((s) => s.name)).toEqual(["orders/eu", "orders/us"]);
    const paged = [];
    for await (const s of b.streams.listAll({ prefix: "orders/", limit: 1 })) paged.push(s.name);
    expect(paged).toEqual(["orders/eu", "orders/us"]);
    await b.streams.delete({ stream: "orders/us" });
    const withDeleted = [];
    for await (const s of b.streams.listAll({ prefix: "orders/", includeDeleted: true }))
      withDeleted.push([s.name, s.deletedAt instanceof Date]);
    expect(withDeleted).toEqual([
      ["orders/eu", false],
      ["orders/us", true],
    ]);
    expect(reported(await sdkError(b.streams.getConfig({ stream: "orders/us" })))).toEqual(
      server(409, "stream_deletion_pending"),
    );
  });

  it("reports stream errors with the status and code the server sent", async () => {
    const b = s2.basin(basin);
    await b.streams.create({ stream: "dup" });
    expect(reported(await sdkError(b.streams.create({ stream: "dup" })))).toEqual(
      server(409, "resource_already_exists"),
    );
    expect(reported(await sdkError(b.streams.getConfig({ stream: "missing" })))).toEqual(
      server(404, "stream_not_found"),
    );
    expect(
      reported(await sdkError(b.streams.create({ stream: "zero", config: { retentionPolicy: { ageSecs: 0 } } }))),
    ).toEqual(server(422, "invalid"));
    expect(reported(await sdkError(s2.basin(uniqueBasin("sdk-nobasin")).streams.getConfig({ stream: "x" })))).toEqual(
      server(404, "basin_not_found"),
    );
  });
});

describe("access tokens through S2's SDK", () => {
  it("issues scoped tokens that lite enforces, lists and revokes them", async () => {
    const basin = uniqueBasin("sdk-tokens");
    await s2.basins.create({ basin, config: { createStreamOnAppend: true } });
    await s2
      .basin(basin)
      .stream("s")
      .append(AppendInput.create([AppendRecord.string({ body: "one" })]));
    const id = `reader/${basin}`;
    const { accessToken } = await s2.accessTokens.issue({
      id,
      expiresAt: new Date(Date.now() + 3_600_000),
      scope: {
        basins: { exact: basin },
        streams: { prefix: "" },
        opGroups: { stream: { read: true } },
        ops: ["list-streams"],
      },
    });
    const listed = await s2.accessTokens.list({ prefix: "reader/" });
    const mine = listed.accessTokens.find((t) => t.id === id)!;
    expect(mine.scope.basins).toEqual({ exact: basin });
    expect(mine.scope.opGroups?.stream).toEqual({ read: true, write: false });
    expect(mine.expiresAt).toBeInstanceOf(Date);
    const reader = sdkClient(lite, accessToken);
    const batch = await reader
      .basin(basin)
      .stream("s")
      .read({ start: { from: { seqNum: 0 } } });
    expect(batch.records.map((r) => r.body)).toEqual(["one"]);
    expect((await reader.basin(basin).streams.list()).streams.map((s) => s.name)).toEqual(["s"]);
    const append = reader
      .basin(basin)
      .stream("s")
      .append(AppendInput.create([AppendRecord.string({ body: "no" })]));
    expect(reported(await sdkError(append))).toEqual(server(403, "permission_denied"));
    expect(reported(await sdkError(reader.basins.list()))).toEqual(server(403, "permission_denied"));
    expect(reported(await sdkError(reader.basin(uniqueBasin("sdk-other")).streams.list()))).toEqual(
      server(403, "permission_denied"),
    );
    expect(
      reported(await sdkError(s2.accessTokens.issue({ id, scope: { opGroups: { stream: { read: true } } } }))),
    ).toEqual(server(409, "resource_already_exists"));
    expect(reported(await sdkError(s2.accessTokens.issue({ id: `${id}-empty`, scope: {} })))).toEqual(
      server(422, "invalid"),
    );
    await s2.accessTokens.revoke({ id });
    expect(reported(await sdkError(reader.basin(basin).stream("s").checkTail()))).toEqual(server(401, "authn"));
    expect(reported(await sdkError(s2.accessTokens.revoke({ id })))).toEqual(server(404, "access_token_not_found"));
  });

  it("gives an auto-prefix token its own namespace of streams", async () => {
    const basin = uniqueBasin("sdk-prefix");
    await s2.basins.create({ basin });
    const { accessToken } = await s2.accessTokens.issue({
      id: `tenant/${basin}`,
      autoPrefixStreams: true,
      scope: {
        basins: { exact: basin },
        streams: { prefix: "tenant-a/" },
        opGroups: { stream: { read: true, write: true } },
        ops: ["list-streams", "create-stream"],
      },
    });
    const tenant = sdkClient(lite, accessToken).basin(basin);
    expect((await tenant.streams.create({ stream: "events" })).name).toBe("events");
    await tenant.stream("events").append(AppendInput.create([AppendRecord.string({ body: "mine" })]));
    expect((await tenant.streams.list()).streams.map((s) => s.name)).toEqual(["events"]);
    expect((await s2.basin(basin).streams.list()).streams.map((s) => s.name)).toEqual(["tenant-a/events"]);
    const fence = tenant.stream("events").append(AppendInput.create([AppendRecord.fence("f")]));
    expect((await fence).end.seqNum).toBe(2);
  });
});

describe("metrics and locations through S2's SDK", () => {
  it("answers account, basin and stream metric sets", async () => {
    const basin = uniqueBasin("sdk-metrics");
    await s2.basins.create({ basin, config: { createStreamOnAppend: true } });
    await s2
      .basin(basin)
      .stream("m")
      .append(AppendInput.create([AppendRecord.string({ body: "hello" })]));
    const start = new Date(Date.now() - 3_600_000);
    const end = new Date(Date.now() + 60_000);
    const active = await s2.metrics.account({ set: "active-basins", start, end });
    const label = active.values.find((m) => "label" in m);
    expect(label && "label" in label ? label.label.values : []).toContain(basin);
    const ops = await s2.metrics.basin({ basin, set: "append-ops", start, end, interval: "minute" });
    const acc = ops.values.find((m) => "accumulation" in m);
    expect(acc && "accumulation" in acc ? acc.accumulation.values.every(([t]) => t instanceof Date) : false).toBe(true);
    const storage = await eventually(async () => {
      const r = await s2.metrics.stream({ basin, stream: "m", set: "storage", start, end });
      const g = r.values.find((m) => "gauge" in m);
      return g && "gauge" in g && g.gauge.values.some(([, v]) => v > 0) ? g.gauge : undefined;
    });
    expect(storage.unit).toBe("bytes");
    expect(reported(await sdkError(s2.metrics.account({ set: "no-such-set" as "active-basins" })))).toEqual(
      server(400, "bad_query"),
    );
  });

  it("lists the locations and reads and sets the default one", async () => {
    const locations = await s2.locations.list();
    expect(locations.length).toBeGreaterThan(0);
    const def = await s2.locations.getDefault();
    expect(locations.map((l) => l.name)).toContain(def.name);
    expect(typeof def.isPrivate).toBe("boolean");
    expect((await s2.locations.setDefault({ location: def.name })).name).toBe(def.name);
    const basin = uniqueBasin("sdk-location");
    expect((await s2.basins.create({ basin, location: def.name })).location).toBe(def.name);
  });
});
