/**
 * What a token's scope lets it reach (protocol.md §9.2, §9.3), for a warning before it is
 * issued: operations come from `ops` and from `op_groups` (the table lite enforces, OP_GROUPS in
 * types.ts), and each operation acts on basins,
 * streams or token ids that must lie in the matching resource set. A set that is absent, null
 * or `{"exact": ""}` holds nothing.
 */
import { badName, type NameKind } from "../../../rules/names.js";
import { type AccessTokenScope, LIMITS, OP_GROUPS, type Operation, type ResourceSet } from "../../../types.js";

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

function grantedOps(scope: AccessTokenScope): Operation[] {
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

/** Whether some valid basin name starts with `prefix` (8..48 of [a-z0-9-], no edge hyphen). */
function basinPrefixProblem(prefix: string): string | undefined {
  if (prefix === "") return undefined;
  if (!/^[a-z0-9-]+$/.test(prefix)) return "basin names hold only lowercase letters, digits and hyphens";
  if (prefix.startsWith("-")) return "basin names do not begin with a hyphen";
  if (prefix.length > LIMITS.basinNameMax || (prefix.length === LIMITS.basinNameMax && prefix.endsWith("-")))
    return `basin names are at most ${LIMITS.basinNameMax} characters, not ending with a hyphen`;
  return undefined;
}

function textPrefixProblem(prefix: string, what: string, maxBytes: number): string | undefined {
  const bytes = Buffer.byteLength(prefix, "utf8");
  return bytes > maxBytes ? `${what} are at most ${maxBytes} UTF-8 bytes` : undefined;
}

/**
 * Exact names and prefixes of the scope that no basin, stream or token id can have or start
 * with (`--basins-exact prod`: basin names are 8 to 48 characters): such a set matches nothing,
 * whatever exists. One warning line each, naming the flag.
 */
export function impossibleNames(scope: AccessTokenScope): string[] {
  const out: string[] = [];
  const sets: [SetKey, string, NameKind, (p: string) => string | undefined][] = [
    ["basins", "--basins", "basin", basinPrefixProblem],
    ["streams", "--streams", "stream", (p) => textPrefixProblem(p, "stream names", LIMITS.streamNameMaxBytes)],
    ["access_tokens", "--tokens", "token", (p) => textPrefixProblem(p, "token ids", LIMITS.tokenIdMaxBytes)],
  ];
  for (const [key, flag, kind, prefixProblem] of sets) {
    const set = scope[key];
    if (set === undefined || set === null) continue;
    if ("exact" in set && set.exact !== "") {
      const bad = badName(kind, set.exact);
      if (bad !== undefined)
        out.push(
          `${flag}-exact matches nothing: no ${kind === "token" ? "token id" : `${kind} name`} can be ${JSON.stringify(set.exact)} (${bad})`,
        );
    }
    if ("prefix" in set) {
      const bad = prefixProblem(set.prefix);
      if (bad !== undefined) out.push(`${flag}-prefix ${JSON.stringify(set.prefix)} matches nothing: ${bad}`);
    }
  }
  return out;
}
