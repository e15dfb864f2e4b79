/**
 * What a token's scope lets it reach (protocol.md §9.2, §9.3), for a warning before it is
 * issued: operations come from `ops` and from `op_groups` (the table lite enforces, in
 * lite/auth/scope.ts; a unit test keeps the two equal), and each operation acts on basins,
 * streams or token ids that must lie in the matching resource set. A set that is absent, null
 * or `{"exact": ""}` holds nothing.
 */
import type { AccessTokenScope, Operation, ResourceSet } from "../../../types.js";

/** §9.2: what each group grants, read and write. */
export const OP_GROUPS: Record<"account" | "basin" | "stream", Record<"read" | "write", Operation[]>> = {
  account: {
    read: [
      "list-basins",
      "get-basin-config",
      "list-access-tokens",
      "account-metrics",
      "list-locations",
      "get-default-location",
    ],
    write: [
      "create-basin",
      "delete-basin",
      "reconfigure-basin",
      "issue-access-token",
      "revoke-access-token",
      "set-default-location",
    ],
  },
  basin: {
    read: ["list-streams", "get-stream-config", "basin-metrics"],
    write: ["create-stream", "delete-stream", "reconfigure-stream"],
  },
  stream: { read: ["check-tail", "read", "stream-metrics"], write: ["append", "trim", "fence"] },
};

type SetKey = "basins" | "streams" | "access_tokens";

/** The resource sets an operation needs something in to act at all. */
function needs(op: Operation): SetKey[] {
  if (["account-metrics", "list-locations", "get-default-location", "set-default-location"].includes(op)) return [];
  if (["issue-access-token", "revoke-access-token", "list-access-tokens"].includes(op)) return ["access_tokens"];
  if (
    ["list-basins", "create-basin", "delete-basin", "reconfigure-basin", "get-basin-config", "basin-metrics"].includes(
      op,
    )
  )
    return ["basins"];
  return ["basins", "streams"];
}

export function grantedOps(scope: AccessTokenScope): Operation[] {
  const out = new Set<Operation>((scope.ops ?? []) as Operation[]);
  for (const level of ["account", "basin", "stream"] as const) {
    const g = scope.op_groups?.[level];
    if (g?.read) for (const op of OP_GROUPS[level].read) out.add(op);
    if (g?.write) for (const op of OP_GROUPS[level].write) out.add(op);
  }
  return [...out];
}

function holdsNothing(set: ResourceSet | null | undefined): boolean {
  return set === undefined || set === null || ("exact" in set && set.exact === "");
}

/** Why the scope reaches nothing, or undefined when some granted operation can act on something. */
export function reachesNothing(scope: AccessTokenScope): string | undefined {
  const ops = grantedOps(scope);
  const empty = (["basins", "streams", "access_tokens"] as const).filter((k) => holdsNothing(scope[k]));
  if (ops.length === 0 || ops.some((op) => needs(op).every((k) => !empty.includes(k)))) return undefined;
  const missing = [...new Set(ops.flatMap((op) => needs(op)).filter((k) => empty.includes(k)))];
  const flag = (k: SetKey): string => `--${k === "access_tokens" ? "tokens" : k}-prefix/-exact`;
  return `its operations (${ops.join(", ")}) act on ${missing.join(" and ").replace("access_tokens", "token ids")}, but its scope holds none: give ${missing.map(flag).join(" and ")} (a prefix of '' means all)`;
}
