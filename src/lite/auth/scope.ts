/**
 * Token scopes (protocol.md §3.5, §9.2, §9.3): operations, operation groups, resource sets,
 * and the questions asked of them. Pure: no storage, no I/O.
 */
import { OP_GROUPS, type Operation } from "../../types.js";
import type { OpGroups, ResourceSet, Scope } from "../storage/types.js";

export type Access = "read" | "write";

export const NONE: ResourceSet = { kind: "none" };

export function noGroups(): OpGroups {
  return {
    account: { read: false, write: false },
    basin: { read: false, write: false },
    stream: { read: false, write: false },
  };
}

/** The union of explicit ops and every op of every enabled group (§9.2). */
export function effectiveOps(scope: Scope): Set<Operation> {
  const out = new Set<Operation>(scope.ops);
  for (const level of ["account", "basin", "stream"] as const) {
    for (const access of ["read", "write"] as const) {
      if (scope.opGroups[level][access]) for (const op of OP_GROUPS[level][access]) out.add(op);
    }
  }
  return out;
}

export function inSet(set: ResourceSet, name: string): boolean {
  if (set.kind === "none") return false;
  return set.kind === "exact" ? name === set.value : name.startsWith(set.value);
}

/** Whether every name `inner` matches is matched by `outer` (no escalation, §9.3). */
export function setWithin(inner: ResourceSet, outer: ResourceSet): boolean {
  if (inner.kind === "none") return true;
  if (outer.kind === "none") return false;
  if (outer.kind === "exact") return inner.kind === "exact" && inner.value === outer.value;
  return inner.value.startsWith(outer.value);
}

/**
 * What a listing with query `prefix` may show under `set`: a narrower prefix, one exact name,
 * or nothing. Lists show only what the token may see (§9.3), without scanning past it.
 */
export function narrowListing(set: ResourceSet, prefix: string): { prefix: string } | { exact: string } | undefined {
  if (set.kind === "none") return undefined;
  if (set.kind === "exact") return set.value.startsWith(prefix) ? { exact: set.value } : undefined;
  if (prefix.startsWith(set.value)) return { prefix };
  if (set.value.startsWith(prefix)) return { prefix: set.value };
  return undefined;
}
