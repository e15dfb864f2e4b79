/**
 * Stream management (protocol.md §2.3 B1–B6, §10.3–§10.5), under the metadata mutex.
 */
import { serverError } from "../../errors.js";
import type { BasinMeta, StreamMeta } from "../storage/storage.js";
import { requestKey, type ProvisionResult } from "./basins.js";
import { canonicalJson, reconfigureStream, resolveStreamConfig, type PartialStreamConfig, type StreamReconfig } from "./stream-config.js";
import { initialState, nowIso, type Store } from "./store.js";

function activeBasin(store: Store, basin: string): BasinMeta {
  const b = store.storage.getBasin(basin);
  if (!b) throw serverError("basin_not_found", `basin ${basin} does not exist`);
  if (b.deletedAt !== null) throw serverError("basin_deletion_pending", `basin ${basin} is being deleted`);
  return b;
}

function liveStream(store: Store, basin: string, name: string): StreamMeta {
  const s = store.storage.getStream(basin, name);
  if (!s) {
    if (!store.storage.getBasin(basin)) throw serverError("basin_not_found", `basin ${basin} does not exist`);
    throw serverError("stream_not_found", `stream ${name} does not exist`);
  }
  if (s.deletedAt !== null) throw serverError("stream_deletion_pending", `stream ${name} is being deleted`);
  return s;
}

/** B1. Cloud's 404 for a missing basin is the recommended behaviour (§2.3). */
export function listStreams(store: Store, basin: string, prefix: string, startAfter: string, limit: number): Promise<{ streams: StreamMeta[]; hasMore: boolean }> {
  return store.meta.run(() => {
    if (!store.storage.getBasin(basin)) throw serverError("basin_not_found", `basin ${basin} does not exist`);
    const page = store.storage.listStreams(basin, prefix, startAfter, limit + 1);
    return { streams: page.slice(0, limit), hasMore: page.length > limit };
  });
}

export function getStream(store: Store, basin: string, name: string): Promise<StreamMeta> {
  return store.meta.run(() => liveStream(store, basin, name));
}

async function create(store: Store, basin: BasinMeta, name: string, requested: PartialStreamConfig, key: string | null, config = resolveStreamConfig(requested, basin.config.default_stream_config)): Promise<StreamMeta> {
  const createdMs = Date.now();
  const meta: StreamMeta = { basin: basin.name, name, id: store.storage.allocateStreamId(), config, createdAt: nowIso(createdMs), deletedAt: null, requestKey: key };
  if (basin.config.stream_cipher) meta.cipher = basin.config.stream_cipher;
  await store.storage.writeMeta([{ op: "putStream", meta }, { op: "putState", id: meta.id, state: initialState(createdMs) }]);
  return meta;
}

/** B2: POST create, idempotent with the same svc-request-token and requested config. */
export function createStream(store: Store, basin: string, name: string, requested: PartialStreamConfig, token: string | undefined): Promise<{ meta: StreamMeta; result: ProvisionResult }> {
  return store.meta.run(async () => {
    const b = activeBasin(store, basin);
    const key = token === undefined ? null : requestKey(token, requested);
    const existing = store.storage.getStream(basin, name);
    if (existing) {
      if (existing.deletedAt !== null) throw serverError("stream_deletion_pending", `stream ${name} is being deleted`);
      if (key !== null && existing.requestKey === key) return { meta: existing, result: "noop" };
      throw serverError("resource_already_exists", `stream ${name} already exists`);
    }
    return { meta: await create(store, b, name, requested, key), result: "created" };
  });
}

/**
 * B4: PUT create-or-reconfigure; the body's fields are applied on top (seed-era merge).
 * `authorize` is told which of the two it is (§9.2) under the mutex, from the same read the
 * change is made on: a create-only token cannot reconfigure a stream created meanwhile.
 */
export function ensureStream(store: Store, basin: string, name: string, reconfig: StreamReconfig, authorize: (op: "create-stream" | "reconfigure-stream") => void): Promise<{ meta: StreamMeta; result: ProvisionResult }> {
  return store.meta.run(async () => {
    const b = activeBasin(store, basin);
    const existing = store.storage.getStream(basin, name);
    authorize(existing ? "reconfigure-stream" : "create-stream");
    if (existing?.deletedAt) throw serverError("stream_deletion_pending", `stream ${name} is being deleted`);
    const defaults = b.config.default_stream_config;
    if (!existing) {
      const config = reconfigureStream(resolveStreamConfig({}, defaults), reconfig, defaults);
      return { meta: await create(store, b, name, {}, null, config), result: "created" };
    }
    const config = reconfigureStream(existing.config, reconfig, defaults);
    const unchanged = canonicalJson(existing.config) === canonicalJson(config);
    return { meta: await applyConfig(store, existing, config), result: unchanged ? "noop" : "updated" };
  });
}

async function applyConfig(store: Store, existing: StreamMeta, config: StreamMeta["config"]): Promise<StreamMeta> {
  if (canonicalJson(existing.config) === canonicalJson(config)) return existing;
  const meta = { ...existing, config };
  await store.storage.writeMeta([{ op: "putStream", meta }]);
  // A reconfiguration applies at once to the live state (§2.3 B5).
  const live = store.loaded(meta.basin, meta.name);
  if (live && live.id === meta.id) live.meta = meta;
  return meta;
}

/** B5: PATCH. */
export function reconfigureStreamOp(store: Store, basin: string, name: string, reconfig: StreamReconfig): Promise<StreamMeta> {
  return store.meta.run(async () => {
    const existing = liveStream(store, basin, name);
    const b = store.storage.getBasin(basin);
    return applyConfig(store, existing, reconfigureStream(existing.config, reconfig, b?.config.default_stream_config ?? null));
  });
}

/** B6: DELETE seals the stream at once; the janitor removes the records, then the name. */
export function deleteStream(store: Store, basin: string, name: string): Promise<void> {
  return store.meta.run(async () => {
    const s = store.storage.getStream(basin, name);
    if (!s) {
      if (!store.storage.getBasin(basin)) throw serverError("basin_not_found", `basin ${basin} does not exist`);
      throw serverError("stream_not_found", `stream ${name} does not exist`);
    }
    if (s.deletedAt !== null) return;
    store.loaded(basin, name)?.markDeleting();
    await store.storage.writeMeta([{ op: "putStream", meta: { ...s, deletedAt: nowIso() } }]);
    store.onWork();
  });
}
