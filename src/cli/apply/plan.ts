/**
 * Desired spec + current state → a plan: for each basin then each of its streams, create
 * (`+`), update (`~`, with field changes), or nothing (`=`); with prune, delete (`-`) what the
 * spec does not name. Reads only; execute.ts carries the plan out.
 */
import type { SvcClient } from "../../client/index.js";
import { SvcError } from "../../errors.js";
import type { BasinInfo } from "../../types.js";
import { attempt } from "../failure.js";
import { formatUri } from "../uri.js";
import { currentBasinFlat, currentStreamFlat, desiredBasinFlat, desiredStreamFlat, diff, type FieldChange } from "./flat.js";
import type { BasinSpec, Flat, Spec } from "./spec.js";

export type ActionKind = "create" | "update" | "noop" | "delete";

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

function isNotFound(e: unknown): boolean {
  const err = (e as { error?: unknown }).error ?? e;
  return err instanceof SvcError && err.status === 404;
}

async function planBasin(client: SvcClient, b: BasinSpec, info: BasinInfo | undefined, prune: boolean): Promise<Action[]> {
  const uri = formatUri(b.name);
  const desired = desiredBasinFlat(b.fields);
  if (info && (info.state === "deleting" || info.deleted_at)) {
    throw new SvcError({ code: "basin_deletion_pending", status: 409, origin: "client", message: `basin ${b.name} is being deleted; apply again once the deletion completes` });
  }
  if (!info) {
    return [
      { kind: "create", resource: "basin", basin: b.name, fields: b.fields, ...(b.scope ? { scope: b.scope } : {}) },
      ...b.streams.map((s): Action => ({ kind: "create", resource: "stream", basin: b.name, stream: s.name, fields: s.fields })),
    ];
  }
  const current = await attempt("get basin", uri, () => client.basins.getConfig(b.name));
  const changes = diff(currentBasinFlat(current), desired);
  const actions: Action[] = [changes.length > 0 ? { kind: "update", resource: "basin", basin: b.name, changes } : { kind: "noop", resource: "basin", basin: b.name }];
  const streams = client.basin(b.name).streams;
  const existing = new Map<string, boolean>();
  await attempt("list streams in", uri, async () => {
    for await (const s of streams.listAll()) existing.set(s.name, s.deleted_at != null);
  });
  for (const s of b.streams) {
    const suri = formatUri(b.name, s.name);
    if (existing.get(s.name) === true) {
      throw new SvcError({ code: "stream_deletion_pending", status: 409, origin: "client", message: `stream ${suri} is being deleted; apply again once the deletion completes` });
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
    actions.push(sc.length > 0 ? { kind: "update", resource: "stream", basin: b.name, stream: s.name, changes: sc } : { kind: "noop", resource: "stream", basin: b.name, stream: s.name });
  }
  if (prune) {
    const named = new Set(b.streams.map((s) => s.name));
    for (const [name, deleting] of existing) {
      if (!named.has(name) && !deleting) actions.push({ kind: "delete", resource: "stream", basin: b.name, stream: name });
    }
  }
  return actions;
}

export async function makePlan(client: SvcClient, spec: Spec, prune: boolean): Promise<Plan> {
  const infos = new Map<string, BasinInfo>();
  await attempt("list basins", undefined, async () => {
    for await (const b of client.basins.listAll()) infos.set(b.name, b);
  });
  const actions: Action[] = [];
  for (const b of spec.basins) actions.push(...(await planBasin(client, b, infos.get(b.name), prune)));
  if (prune) {
    const named = new Set(spec.basins.map((b) => b.name));
    for (const [name, info] of infos) {
      if (!named.has(name) && ownsBasin(spec, name) && info.state !== "deleting" && !info.deleted_at) actions.push({ kind: "delete", resource: "basin", basin: name });
    }
  }
  return { actions };
}

/** Whether the spec's prune scope covers a basin it does not name. */
export function ownsBasin(spec: Spec, name: string): boolean {
  return spec.prune?.basinPrefixes.some((p) => name.startsWith(p)) === true;
}

/** What `--prune` may delete, in words, for the plan. */
export function pruneScopeText(spec: Spec): string {
  const streams = `streams of the ${spec.basins.length} basin${spec.basins.length === 1 ? "" : "s"} the spec names`;
  const p = spec.prune?.basinPrefixes ?? [];
  if (p.length === 0) return `prune scope: ${streams}; no basins (the spec declares no "prune": {"basin_prefixes": [...]})`;
  if (p.includes("")) return `prune scope: ${streams}; every basin the spec does not name ("basin_prefixes" has "")`;
  return `prune scope: ${streams}; basins starting with ${p.map((x) => JSON.stringify(x)).join(", ")}`;
}

export function pending(plan: Plan): number {
  return plan.actions.filter((a) => a.kind !== "noop").length;
}
