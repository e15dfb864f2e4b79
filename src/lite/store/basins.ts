/**
 * Basin operations (protocol.md §2.2 A1–A6, §10.4, §10.5). Each runs under the metadata
 * mutex and answers only after its write is durable.
 */
import { createHash } from "node:crypto";
import { serverError } from "../../errors.js";
import type { BasinMeta, MetaOp } from "../storage/storage.js";
import { canonicalJson, DEFAULT_BASIN_CONFIG, reconfigureBasin, type BasinReconfig, type StoredBasinConfig } from "./stream-config.js";
import { nowIso, type Store } from "./store.js";

export type ProvisionResult = "created" | "updated" | "noop";

/** §10.5: the key binds the request token to the requested (normalised, unmerged) config. */
export function requestKey(token: string, requested: unknown): string {
  return createHash("sha256").update(token).update("\u0000").update(canonicalJson(requested)).digest("base64url");
}

/** A1. Under the mutex, like every metadata read, so a create is visible only once durable. */
export function listBasins(store: Store, prefix: string, startAfter: string, limit: number): Promise<{ basins: BasinMeta[]; hasMore: boolean }> {
  return store.meta.run(() => {
    const page = store.storage.listBasins(prefix, startAfter, limit + 1);
    return { basins: page.slice(0, limit), hasMore: page.length > limit };
  });
}

export function getBasin(store: Store, name: string): Promise<BasinMeta> {
  return store.meta.run(() => {
    const b = store.storage.getBasin(name);
    if (!b) throw serverError("basin_not_found", `basin ${name} does not exist`);
    return b;
  });
}

/** A2: POST create, idempotent with the same svc-request-token and config. */
export function createBasin(store: Store, name: string, config: StoredBasinConfig, token: string | undefined): Promise<{ meta: BasinMeta; result: ProvisionResult }> {
  return store.meta.run(async () => {
    const key = token === undefined ? null : requestKey(token, config);
    const existing = store.storage.getBasin(name);
    if (existing) {
      if (existing.deletedAt !== null) throw serverError("basin_deletion_pending", `basin ${name} is being deleted`);
      if (key !== null && existing.requestKey === key) return { meta: existing, result: "noop" };
      throw serverError("resource_already_exists", `basin ${name} already exists`);
    }
    const meta: BasinMeta = { name, config, createdAt: nowIso(), deletedAt: null, requestKey: key };
    await store.storage.writeMeta([{ op: "putBasin", meta }]);
    return { meta, result: "created" };
  });
}

/**
 * A4: PUT create-or-reconfigure with seed-era merge semantics (absent fields unchanged).
 * `authorize` is told which of the two it is (§9.2) from the read the change is made on.
 */
export function ensureBasin(store: Store, name: string, reconfig: BasinReconfig, authorize: (op: "create-basin" | "reconfigure-basin") => void): Promise<{ meta: BasinMeta; result: ProvisionResult }> {
  return store.meta.run(async () => {
    const existing = store.storage.getBasin(name);
    authorize(existing ? "reconfigure-basin" : "create-basin");
    if (existing?.deletedAt) throw serverError("basin_deletion_pending", `basin ${name} is being deleted`);
    const config = reconfigureBasin(existing?.config ?? DEFAULT_BASIN_CONFIG, reconfig);
    if (existing && canonicalJson(existing.config) === canonicalJson(config)) return { meta: existing, result: "noop" };
    const meta: BasinMeta = existing ? { ...existing, config } : { name, config, createdAt: nowIso(), deletedAt: null, requestKey: null };
    await store.storage.writeMeta([{ op: "putBasin", meta }]);
    return { meta, result: existing ? "updated" : "created" };
  });
}

/** A5: PATCH. */
export function reconfigureBasinOp(store: Store, name: string, reconfig: BasinReconfig): Promise<BasinMeta> {
  return store.meta.run(async () => {
    const existing = store.storage.getBasin(name);
    if (!existing) throw serverError("basin_not_found", `basin ${name} does not exist`);
    if (existing.deletedAt !== null) throw serverError("basin_deletion_pending", `basin ${name} is being deleted`);
    const config = reconfigureBasin(existing.config, reconfig);
    if (canonicalJson(existing.config) === canonicalJson(config)) return existing;
    const meta = { ...existing, config };
    await store.storage.writeMeta([{ op: "putBasin", meta }]);
    return meta;
  });
}

/**
 * A6: DELETE. The basin and all its streams are marked deleting in one write (so no stream
 * accepts appends afterwards); the janitor then removes the data and finally the basin.
 */
export function deleteBasin(store: Store, name: string): Promise<void> {
  return store.meta.run(async () => {
    const existing = store.storage.getBasin(name);
    if (!existing) throw serverError("basin_not_found", `basin ${name} does not exist`);
    if (existing.deletedAt !== null) return;
    const now = nowIso();
    const ops: MetaOp[] = [{ op: "putBasin", meta: { ...existing, deletedAt: now } }];
    let after = "";
    for (;;) {
      const page = store.storage.listStreams(name, "", after, 1000);
      for (const s of page) {
        if (s.deletedAt === null) ops.push({ op: "putStream", meta: { ...s, deletedAt: now } });
        store.loaded(name, s.name)?.markDeleting();
      }
      if (page.length < 1000) break;
      after = page[page.length - 1]!.name;
    }
    await store.storage.writeMeta(ops);
    store.onWork();
  });
}
