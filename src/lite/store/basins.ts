/**
 * Basin operations (protocol.md §2.2 A1–A6, §10.4, §10.5). Each runs under the basin's lock
 * (meta-locks.ts) and answers only after its write is durable. Every change is conditional
 * on what is stored (storage/seams.ts): when another node changed the basin meanwhile, the
 * operation is judged again against what it finds.
 */
import { createHash } from "node:crypto";
import { serverError } from "../../errors.js";
import type { Access } from "../auth/decision.js";
import type { CatalogChange } from "../storage/seams.js";
import type { BasinMeta, StoredBasinConfig } from "../storage/types.js";
import { nowIso } from "./live-stream.js";
import type { Store } from "./store.js";
import { type BasinReconfig, canonicalJson, DEFAULT_BASIN_CONFIG, reconfigureBasin } from "./stream-config.js";

export type ProvisionResult = "created" | "updated" | "noop";

/** How often an operation is judged again after another node changed what it read. */
const ATTEMPTS = 8;

export function conflict(what: string): Error {
  return serverError("transaction_conflict", `${what} kept changing through other nodes; nothing was changed: retry`);
}

/** §10.5: the key binds the request token to the requested (normalised, unmerged) config. */
export function requestKey(token: string, requested: unknown): string {
  return createHash("sha256").update(token).update("\u0000").update(canonicalJson(requested)).digest("base64url");
}

/** Runs `attempt` until it returns a result (not undefined: its change found things changed). */
export async function judged<T>(what: string, attempt: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < ATTEMPTS; i++) {
    const r = await attempt();
    if (r !== undefined) return r;
  }
  throw conflict(what);
}

/** A1. Answered once what it saw is durable (meta-locks.ts): a create is seen only once it cannot be lost. */
export function listBasins(
  store: Store,
  prefix: string,
  startAfter: string,
  limit: number,
): Promise<{ basins: BasinMeta[]; hasMore: boolean }> {
  return store.meta.read(async () => {
    const page = await store.catalog.listBasins(prefix, startAfter, limit + 1);
    return { basins: page.slice(0, limit), hasMore: page.length > limit };
  });
}

export function getBasin(store: Store, name: string): Promise<BasinMeta> {
  return store.meta.read(async () => {
    const b = await store.catalog.getBasin(name);
    if (!b) throw serverError("basin_not_found", `basin ${name} does not exist`);
    return b;
  });
}

/** Whether a basin of that name exists (metrics count its requests only then). */
export async function basinExists(store: Store, name: string): Promise<boolean> {
  return (await store.catalog.getBasin(name)) !== undefined;
}

async function newBasin(store: Store, name: string, config: StoredBasinConfig, key: string | null): Promise<BasinMeta> {
  return {
    name,
    config,
    createdAt: nowIso(store.now()),
    deletedAt: null,
    requestKey: key,
    id: await store.catalog.newId(),
    rev: 0,
  };
}

/** A2: POST create, idempotent with the same svc-request-token and config. */
export function createBasin(
  store: Store,
  name: string,
  config: StoredBasinConfig,
  token: string | undefined,
): Promise<{ meta: BasinMeta; result: ProvisionResult }> {
  const key = token === undefined ? null : requestKey(token, config);
  return store.meta.basin(name, () =>
    judged(`basin ${name}`, async () => {
      const existing = await store.catalog.getBasin(name);
      if (existing) {
        if (existing.deletedAt !== null) throw serverError("basin_deletion_pending", `basin ${name} is being deleted`);
        if (key !== null && existing.requestKey === key) return { meta: existing, result: "noop" as const };
        throw serverError("resource_already_exists", `basin ${name} already exists`);
      }
      const meta = await newBasin(store, name, config, key);
      return (await store.catalog.change({ op: "createBasin", meta }))
        ? { meta, result: "created" as const }
        : undefined;
    }),
  );
}

/**
 * A4: PUT create-or-reconfigure with seed-era merge semantics (absent fields unchanged).
 * Which of the two it is (§9.2) is told from the read the change is made on, and the
 * request's access decision is asked whether it may do that one.
 */
export function ensureBasin(
  store: Store,
  name: string,
  reconfig: BasinReconfig,
  access: Pick<Access, "require">,
): Promise<{ meta: BasinMeta; result: ProvisionResult }> {
  return store.meta.basin(name, () =>
    judged(`basin ${name}`, async () => {
      const existing = await store.catalog.getBasin(name);
      access.require(existing ? "reconfigure-basin" : "create-basin");
      if (existing?.deletedAt) throw serverError("basin_deletion_pending", `basin ${name} is being deleted`);
      const config = reconfigureBasin(existing?.config ?? DEFAULT_BASIN_CONFIG, reconfig);
      if (existing && canonicalJson(existing.config) === canonicalJson(config))
        return { meta: existing, result: "noop" as const };
      const meta: BasinMeta = existing ? { ...existing, config } : await newBasin(store, name, config, null);
      const change: CatalogChange = existing
        ? { op: "updateBasin", meta, rev: existing.rev ?? 0 }
        : { op: "createBasin", meta };
      if (!(await store.catalog.change(change))) return undefined;
      return {
        meta: { ...meta, rev: existing ? (existing.rev ?? 0) + 1 : 0 },
        result: existing ? ("updated" as const) : ("created" as const),
      };
    }),
  );
}

/** A5: PATCH. */
export function reconfigureBasinOp(store: Store, name: string, reconfig: BasinReconfig): Promise<BasinMeta> {
  return store.meta.basin(name, () =>
    judged(`basin ${name}`, async () => {
      const existing = await store.catalog.getBasin(name);
      if (!existing) throw serverError("basin_not_found", `basin ${name} does not exist`);
      if (existing.deletedAt !== null) throw serverError("basin_deletion_pending", `basin ${name} is being deleted`);
      const config = reconfigureBasin(existing.config, reconfig);
      if (canonicalJson(existing.config) === canonicalJson(config)) return existing;
      const meta = { ...existing, config };
      return (await store.catalog.change({ op: "updateBasin", meta, rev: existing.rev ?? 0 }))
        ? { ...meta, rev: (existing.rev ?? 0) + 1 }
        : undefined;
    }),
  );
}

/**
 * A6: DELETE. The basin and every stream of it are sealed in one change (no stream accepts
 * appends afterwards, whatever node it is appended through); the janitor then removes the
 * data and finally the basin.
 */
export function deleteBasin(store: Store, name: string): Promise<void> {
  return store.meta
    .basin(name, () =>
      judged(`basin ${name}`, async () => {
        const existing = await store.catalog.getBasin(name);
        if (!existing) throw serverError("basin_not_found", `basin ${name} does not exist`);
        if (existing.deletedAt !== null) return true;
        if (!store.shared) for (const s of store.allLoaded()) if (s.meta.basin === name) s.markDeleting();
        if (!(await store.catalog.change({ op: "deleteBasin", name, id: existing.id ?? 0, at: nowIso(store.now()) })))
          return undefined;
        for (const s of store.allLoaded()) if (s.meta.basin === name) s.markDeleting();
        store.onWork();
        return true;
      }),
    )
    .then(() => undefined);
}
