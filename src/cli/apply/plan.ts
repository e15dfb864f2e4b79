/**
 * Desired spec + current state → a plan: for each basin then each of its streams, create
 * (`+`), update (`~`, with field changes), or nothing (`=`); with prune, delete (`-`) what the
 * spec does not name. Reads only; execute.ts carries the plan out.
 *
 * What exists is found by listing (which also shows what is being deleted). A token that may
 * not list (no `list-basins` / `list-streams`) but may read configs still gets a plan for what
 * the spec names: each basin and stream is then looked up by its config (404: missing). Only
 * `--prune` needs the lists, to find what the spec does not name. It leaves consumers'
 * position streams alone (`_svc-consumer/…`, docs/consumers.md).
 */
import type { SvcClient } from "../../client/client.js";
import { SvcError } from "../../errors.js";
import type { BasinSpec, Flat, Spec } from "../../rules/spec.js";
import type { BasinInfo } from "../../types.js";
import { isPositionStream } from "../consumer/names.js";
import { attempt } from "../failure.js";
import { formatUri } from "../uri.js";
import {
  currentBasinFlat,
  currentStreamFlat,
  desiredBasinFlat,
  desiredStreamFlat,
  diff,
  type FieldChange,
} from "./flat.js";

type ActionKind = "create" | "update" | "noop" | "delete";

export interface Action {
  kind: ActionKind;
  resource: "basin" | "stream";
  basin: string;
  stream?: string;
  /** create: the fields the spec sets; update: what changes. */
  fields?: Flat;
  changes?: FieldChange[];
  scope?: string;
}

export interface Plan {
  actions: Action[];
}

function statusOf(e: unknown): number | undefined {
  const err = (e as { error?: unknown }).error ?? e;
  return err instanceof SvcError ? err.status : undefined;
}

function isNotFound(e: unknown): boolean {
  return statusOf(e) === 404;
}

/** Names → items of a listing; undefined when the token may not list and `needed` is false. */
async function listing<T>(
  operation: string,
  uri: string | undefined,
  items: () => AsyncIterable<T>,
  key: (t: T) => string,
  needed: boolean,
): Promise<Map<string, T> | undefined> {
  const out = new Map<string, T>();
  try {
    await attempt(operation, uri, async () => {
      for await (const item of items()) out.set(key(item), item);
    });
  } catch (e) {
    if (statusOf(e) === 403 && !needed) return undefined;
    throw e;
  }
  return out;
}

/** Whether `get()` finds it (a config read: 404 is no). */
async function exists(operation: string, uri: string, get: () => Promise<unknown>): Promise<boolean> {
  try {
    await attempt(operation, uri, get);
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
}

async function planBasin(
  client: SvcClient,
  b: BasinSpec,
  info: BasinInfo | undefined,
  prune: boolean,
): Promise<Action[]> {
  const uri = formatUri(b.name);
  const desired = desiredBasinFlat(b.fields);
  if (info && (info.state === "deleting" || info.deleted_at)) {
    throw new SvcError({
      code: "basin_deletion_pending",
      status: 409,
      origin: "client",
      message: `basin ${b.name} is being deleted; apply again once the deletion completes`,
    });
  }
  if (!info) {
    return [
      { kind: "create", resource: "basin", basin: b.name, fields: b.fields, ...(b.scope ? { scope: b.scope } : {}) },
      ...b.streams.map(
        (s): Action => ({ kind: "create", resource: "stream", basin: b.name, stream: s.name, fields: s.fields }),
      ),
    ];
  }
  const current = await attempt("get basin", uri, () => client.basins.getConfig(b.name));
  const changes = diff(currentBasinFlat(current), desired);
  const actions: Action[] = [
    changes.length > 0
      ? { kind: "update", resource: "basin", basin: b.name, changes }
      : { kind: "noop", resource: "basin", basin: b.name },
  ];
  const streams = client.basin(b.name).streams;
  const listed = await listing(
    "list streams in",
    uri,
    () => streams.listAll(),
    (s) => s.name,
    prune,
  );
  const existing = new Map<string, boolean>();
  for (const [name, s] of listed ?? []) existing.set(name, s.deleted_at != null);
  if (!listed) {
    for (const s of b.streams)
      if (await exists("get stream", formatUri(b.name, s.name), () => streams.getConfig(s.name)))
        existing.set(s.name, false);
  }
  for (const s of b.streams) {
    const suri = formatUri(b.name, s.name);
    if (existing.get(s.name) === true) {
      throw new SvcError({
        code: "stream_deletion_pending",
        status: 409,
        origin: "client",
        message: `stream ${suri} is being deleted; apply again once the deletion completes`,
      });
    }
    let cfg;
    try {
      cfg = existing.has(s.name) ? await attempt("get stream", suri, () => streams.getConfig(s.name)) : undefined;
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    if (!cfg) {
      actions.push({ kind: "create", resource: "stream", basin: b.name, stream: s.name, fields: s.fields });
      continue;
    }
    const sc = diff(currentStreamFlat(cfg), desiredStreamFlat(s.fields, desired));
    actions.push(
      sc.length > 0
        ? { kind: "update", resource: "stream", basin: b.name, stream: s.name, changes: sc }
        : { kind: "noop", resource: "stream", basin: b.name, stream: s.name },
    );
  }
  if (prune) {
    const named = new Set(b.streams.map((s) => s.name));
    for (const [name, deleting] of existing) {
      // Consumers' positions (`_svc-consumer/…`, docs/consumers.md) are svc's own, not the spec's.
      if (!named.has(name) && !deleting && !isPositionStream(name))
        actions.push({ kind: "delete", resource: "stream", basin: b.name, stream: name });
    }
  }
  return actions;
}

export async function makePlan(client: SvcClient, spec: Spec, prune: boolean): Promise<Plan> {
  const listed = await listing(
    "list basins",
    undefined,
    () => client.basins.listAll(),
    (b) => b.name,
    prune && (spec.prune?.basinPrefixes.length ?? 0) > 0,
  );
  const infos = listed ?? new Map<string, BasinInfo>();
  if (!listed) {
    for (const b of spec.basins) {
      if (await exists("get basin", formatUri(b.name), () => client.basins.getConfig(b.name)))
        infos.set(b.name, { name: b.name, state: "active", scope: null });
    }
  }
  const actions: Action[] = [];
  for (const b of spec.basins) actions.push(...(await planBasin(client, b, infos.get(b.name), prune)));
  if (prune) {
    const named = new Set(spec.basins.map((b) => b.name));
    for (const [name, info] of infos) {
      if (!named.has(name) && ownsBasin(spec, name) && info.state !== "deleting" && !info.deleted_at)
        actions.push({ kind: "delete", resource: "basin", basin: name });
    }
  }
  return { actions };
}

/** Whether the spec's prune scope covers a basin it does not name. */
function ownsBasin(spec: Spec, name: string): boolean {
  return spec.prune?.basinPrefixes.some((p) => name.startsWith(p)) === true;
}

/** What `--prune` may delete, in words, for the plan. */
export function pruneScopeText(spec: Spec): string {
  const streams = `streams of the ${spec.basins.length} basin${spec.basins.length === 1 ? "" : "s"} the spec names`;
  const p = spec.prune?.basinPrefixes ?? [];
  if (p.length === 0)
    return `prune scope: ${streams}; no basins (the spec declares no "prune": {"basin_prefixes": [...]})`;
  if (p.includes("")) return `prune scope: ${streams}; every basin the spec does not name ("basin_prefixes" has "")`;
  return `prune scope: ${streams}; basins starting with ${p.map((x) => JSON.stringify(x)).join(", ")}`;
}

export function pending(plan: Plan): number {
  return plan.actions.filter((a) => a.kind !== "noop").length;
}
