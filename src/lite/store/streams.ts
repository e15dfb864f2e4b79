/**
 * Stream management (protocol.md §2.3 B1–B6, §10.3–§10.5), under the stream's lock (meta-locks.ts), each
 * change conditional on what is stored (basins.ts says how a changed read is judged again).
 */
import { serverError } from "../../errors.js";
import type { Access } from "../auth/decision.js";
import type { BasinMeta, PartialStreamConfig, StreamMeta } from "../storage/types.js";
import { judged, type ProvisionResult, requestKey } from "./basins.js";
import { initialState, nowIso } from "./live-stream.js";
import type { Store } from "./store.js";
import { canonicalJson, reconfigureStream, resolveStreamConfig, type StreamReconfig } from "./stream-config.js";

async function activeBasin(store: Store, basin: string): Promise<BasinMeta> {
  const b = await store.catalog.getBasin(basin);
  if (!b) throw serverError("basin_not_found", `basin ${basin} does not exist`);
  if (b.deletedAt !== null) throw serverError("basin_deletion_pending", `basin ${basin} is being deleted`);
  return b;
}

async function liveStream(store: Store, basin: string, name: string): Promise<StreamMeta> {
  const s = await store.catalog.getStream(basin, name);
  if (!s) {
    if (!(await store.catalog.getBasin(basin))) throw serverError("basin_not_found", `basin ${basin} does not exist`);
    throw serverError("stream_not_found", `stream ${name} does not exist`);
  }
  if (s.deletedAt !== null) throw serverError("stream_deletion_pending", `stream ${name} is being deleted`);
  return s;
}

/** B1. Cloud's 404 for a missing basin is the recommended behaviour (§2.3). */
export function listStreams(
  store: Store,
  basin: string,
  prefix: string,
  startAfter: string,
  limit: number,
): Promise<{ streams: StreamMeta[]; hasMore: boolean }> {
  return store.meta.read(async () => {
    if (!(await store.catalog.getBasin(basin))) throw serverError("basin_not_found", `basin ${basin} does not exist`);
    const page = await store.catalog.listStreams(basin, prefix, startAfter, limit + 1);
    return { streams: page.slice(0, limit), hasMore: page.length > limit };
  });
}

export function getStream(store: Store, basin: string, name: string): Promise<StreamMeta> {
  return store.meta.read(() => liveStream(store, basin, name));
}

/** Whether the stream exists (its basin's 404 first, as every stream request answers). */
export async function checkStreamExists(store: Store, basin: string, name: string): Promise<void> {
  if (await store.catalog.getStream(basin, name)) return;
  if (!(await store.catalog.getBasin(basin))) throw serverError("basin_not_found", `basin ${basin} does not exist`);
  throw serverError("stream_not_found", `stream ${name} does not exist`);
}

/** Creates the stream when its basin is live and the name free; undefined when either changed. */
async function create(
  store: Store,
  basin: BasinMeta,
  name: string,
  key: string | null,
  config: StreamMeta["config"],
): Promise<StreamMeta | undefined> {
  const createdMs = store.now();
  const meta: StreamMeta = {
    basin: basin.name,
    name,
    id: await store.catalog.newId(),
    config,
    createdAt: nowIso(createdMs),
    deletedAt: null,
    requestKey: key,
    rev: 0,
  };
  if (basin.config.stream_cipher) meta.cipher = basin.config.stream_cipher;
  return (await store.catalog.change({ op: "createStream", meta, state: initialState(createdMs) })) ? meta : undefined;
}

/** B2: POST create, idempotent with the same svc-request-token and requested config. */
export function createStream(
  store: Store,
  basin: string,
  name: string,
  requested: PartialStreamConfig,
  token: string | undefined,
): Promise<{ meta: StreamMeta; result: ProvisionResult }> {
  const key = token === undefined ? null : requestKey(token, requested);
  // On a shared backend the first attempt creates without looking first (one database round
  // trip less per creation); when the name is taken, the next one finds what took it and judges
  // it. A local catalog's lookup costs no I/O, while a refused write would cost a disk sync.
  let first = store.shared;
  return store.meta.stream(basin, name, () =>
    judged(`stream ${name}`, async () => {
      const b = await activeBasin(store, basin);
      const existing = first ? undefined : await store.catalog.getStream(basin, name);
      first = false;
      if (existing) {
        if (existing.deletedAt !== null)
          throw serverError("stream_deletion_pending", `stream ${name} is being deleted`);
        if (key !== null && existing.requestKey === key) return { meta: existing, result: "noop" as const };
        throw serverError("resource_already_exists", `stream ${name} already exists`);
      }
      const meta = await create(store, b, name, key, resolveStreamConfig(requested, b.config.default_stream_config));
      return meta && { meta, result: "created" as const };
    }),
  );
}

/**
 * B4: PUT create-or-reconfigure; the body's fields are applied on top (seed-era merge).
 * Which of the two it is (§9.2) is told under the stream's lock, from the same read the change is
 * made on, and the request's access decision is asked whether it may do that one: a
 * create-only token cannot reconfigure a stream created meanwhile.
 */
export function ensureStream(
  store: Store,
  basin: string,
  name: string,
  reconfig: StreamReconfig,
  access: Pick<Access, "require">,
): Promise<{ meta: StreamMeta; result: ProvisionResult }> {
  return store.meta.stream(basin, name, () =>
    judged(`stream ${name}`, async () => {
      const b = await activeBasin(store, basin);
      const existing = await store.catalog.getStream(basin, name);
      access.require(existing ? "reconfigure-stream" : "create-stream");
      if (existing?.deletedAt) throw serverError("stream_deletion_pending", `stream ${name} is being deleted`);
      const defaults = b.config.default_stream_config;
      if (!existing) {
        const meta = await create(
          store,
          b,
          name,
          null,
          reconfigureStream(resolveStreamConfig({}, defaults), reconfig, defaults),
        );
        return meta && { meta, result: "created" as const };
      }
      const config = reconfigureStream(existing.config, reconfig, defaults);
      if (canonicalJson(existing.config) === canonicalJson(config)) return { meta: existing, result: "noop" as const };
      const meta = await applyConfig(store, existing, config);
      return meta && { meta, result: "updated" as const };
    }),
  );
}

/** Stores a new config made from `existing`; undefined when the stream changed meanwhile. */
async function applyConfig(
  store: Store,
  existing: StreamMeta,
  config: StreamMeta["config"],
): Promise<StreamMeta | undefined> {
  if (canonicalJson(existing.config) === canonicalJson(config)) return existing;
  const rev = existing.rev ?? 0;
  if (!(await store.catalog.change({ op: "updateStream", meta: { ...existing, config }, rev }))) return undefined;
  const meta = { ...existing, config, rev: rev + 1 };
  // A reconfiguration applies at once to the live state on this node (§2.3 B5).
  const live = store.loaded(meta.basin, meta.name);
  if (live && live.id === meta.id) live.meta = meta;
  return meta;
}

/** B5: PATCH. */
export function reconfigureStreamOp(
  store: Store,
  basin: string,
  name: string,
  reconfig: StreamReconfig,
): Promise<StreamMeta> {
  return store.meta.stream(basin, name, () =>
    judged(`stream ${name}`, async () => {
      const existing = await liveStream(store, basin, name);
      const b = await store.catalog.getBasin(basin);
      return applyConfig(
        store,
        existing,
        reconfigureStream(existing.config, reconfig, b?.config.default_stream_config ?? null),
      );
    }),
  );
}

/** B6: DELETE seals the stream at once; the janitor removes the records, then the name. */
export function deleteStream(store: Store, basin: string, name: string): Promise<void> {
  return store.meta
    .stream(basin, name, () =>
      judged(`stream ${name}`, async () => {
        const s = await store.catalog.getStream(basin, name);
        if (!s) {
          if (!(await store.catalog.getBasin(basin)))
            throw serverError("basin_not_found", `basin ${basin} does not exist`);
          throw serverError("stream_not_found", `stream ${name} does not exist`);
        }
        if (s.deletedAt !== null) return true;
        const live = store.loaded(basin, name);
        // This node alone appends to a local stream: it stops taking appends before the write.
        if (!store.shared && live?.id === s.id) live.markDeleting();
        if (!(await store.catalog.change({ op: "deleteStream", basin, name, id: s.id, at: nowIso(store.now()) })))
          return undefined;
        if (live?.id === s.id) live.markDeleting();
        store.onWork();
        return true;
      }),
    )
    .then(() => undefined);
}
