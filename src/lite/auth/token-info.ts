/**
 * `AccessTokenInfo` (protocol.md §3.5): the issue request parsed and checked, and the listed
 * form. Stored tokens keep a hash of the secret, never the secret (secret.ts).
 */
import { serverError } from "../../errors.js";
import { badName, hasNul } from "../../rules/names.js";
import { OPERATIONS, type Operation } from "../../types.js";
import type { OpGroups, ResourceSet, Scope, StoredToken } from "../storage/types.js";
import { NONE, noGroups } from "./scope.js";

export interface IssueRequest {
  id: string;
  scope: Scope;
  /** Absent: the requestor's expiry. */
  expiresAt: string | null | undefined;
  autoPrefixStreams: boolean;
}

const invalid = (message: string) => serverError("invalid", message);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * What is wrong with an access-token id from a request (a body field or a path), said as a
 * message naming it, or undefined; rules/names.ts `tokenIdProblem` is the rule it applies.
 */
export function badTokenId(id: unknown): string | undefined {
  if (typeof id !== "string") return "`id` must be a string";
  return badName("token", id);
}

function parseSet(v: unknown, field: string): ResourceSet {
  if (v === undefined || v === null) return NONE;
  if (!isObject(v) || Object.keys(v).length !== 1)
    throw invalid(`scope.${field} must have exactly one of \`exact\` or \`prefix\``);
  const value = v.exact ?? v.prefix;
  if (typeof value === "string" && hasNul(value))
    throw invalid(`scope.${field}: a name or prefix must not contain NUL (U+0000)`);
  if (typeof v.exact === "string") return v.exact === "" ? NONE : { kind: "exact", value: v.exact };
  if (typeof v.prefix === "string") return { kind: "prefix", value: v.prefix };
  throw invalid(`scope.${field} must be {"exact": string} or {"prefix": string}`);
}

function parseGroups(v: unknown): OpGroups {
  const groups = noGroups();
  if (v === undefined || v === null) return groups;
  if (!isObject(v)) throw invalid("scope.op_groups must be an object");
  for (const [level, perms] of Object.entries(v)) {
    if (level !== "account" && level !== "basin" && level !== "stream")
      throw invalid(`scope.op_groups has no level \`${level}\``);
    if (perms === null) continue;
    if (!isObject(perms)) throw invalid(`scope.op_groups.${level} must be {"read"?: bool, "write"?: bool}`);
    for (const [k, b] of Object.entries(perms)) {
      if ((k !== "read" && k !== "write") || (typeof b !== "boolean" && b !== null))
        throw invalid(`scope.op_groups.${level}.${k} must be \`read\` or \`write\` with a boolean`);
      groups[level][k] = b === true;
    }
  }
  return groups;
}

function parseOps(v: unknown): Operation[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalid("scope.ops must be an array of operation names");
  const known = new Set<string>(OPERATIONS);
  for (const op of v)
    if (typeof op !== "string" || !known.has(op)) throw invalid(`scope.ops: unknown operation ${JSON.stringify(op)}`);
  return [...new Set(v as Operation[])];
}

function parseScope(v: unknown): Scope {
  if (!isObject(v)) throw invalid("`scope` is required and must be an object");
  return {
    basins: parseSet(v.basins, "basins"),
    streams: parseSet(v.streams, "streams"),
    accessTokens: parseSet(v.access_tokens, "access_tokens"),
    opGroups: parseGroups(v.op_groups),
    ops: parseOps(v.ops),
  };
}

/** RFC 3339 with an explicit offset or Z, after `now`; normalised to ISO 8601 UTC. */
function parseExpiry(v: unknown, now: number): string | null | undefined {
  if (v === undefined) return undefined;
  if (v === null) return null;
  const ms = typeof v === "string" ? rfc3339Ms(v) : undefined;
  if (ms === undefined) throw invalid("`expires_at` must be an RFC 3339 timestamp, e.g. 2030-01-01T00:00:00Z");
  if (ms === "sub-ms")
    throw invalid(
      "`expires_at` is more precise than a millisecond: give at most 3 fraction digits (or zeros after them)",
    );
  if (ms <= now) throw invalid("`expires_at` must be in the future");
  return new Date(ms).toISOString();
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * An RFC 3339 timestamp in ms, checked field by field (Date.parse rolls 2027-02-30 over to
 * March 2 and reads 24:00 as the next day); "sub-ms" when digits past the millisecond are
 * not zeros (they would be dropped); undefined when it is not one. No leap second (:60).
 */
function rfc3339Ms(text: string): number | "sub-ms" | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59)
    return undefined;
  const fraction = m[7] ?? "";
  if (/[1-9]/.test(fraction.slice(3))) return "sub-ms";
  const offsetMinutes = m[8] === undefined ? 0 : (m[8] === "-" ? -1 : 1) * (Number(m[9]) * 60 + Number(m[10]));
  if (m[8] !== undefined && (Number(m[9]) > 23 || Number(m[10]) > 59)) return undefined;
  return (
    Date.UTC(year, month - 1, day, hour, minute, second, Number(fraction.slice(0, 3).padEnd(3, "0"))) -
    offsetMinutes * 60_000
  );
}

/** `now`: the clock tokens expire by (Auth.now): `expires_at` must be after it. */
export function parseIssueRequest(body: unknown, now: number): IssueRequest {
  if (!isObject(body)) throw serverError("bad_json", "the request body must be a JSON object");
  const problem = badTokenId(body.id);
  if (problem) throw invalid(problem);
  const scope = parseScope(body.scope);
  if (
    body.auto_prefix_streams !== undefined &&
    body.auto_prefix_streams !== null &&
    typeof body.auto_prefix_streams !== "boolean"
  ) {
    throw invalid("`auto_prefix_streams` must be a boolean");
  }
  const autoPrefixStreams = body.auto_prefix_streams === true;
  if (autoPrefixStreams && scope.streams.kind !== "prefix")
    throw invalid('`auto_prefix_streams` needs a `{"prefix": …}` stream scope');
  return { id: body.id as string, scope, expiresAt: parseExpiry(body.expires_at, now), autoPrefixStreams };
}

function setJson(set: ResourceSet): Record<string, string> | null {
  return set.kind === "none" ? null : { [set.kind]: set.value };
}

/** The listed form: never the secret; all three groups explicit (§3.5). */
export function tokenInfoJson(t: StoredToken): Record<string, unknown> {
  return {
    id: t.id,
    scope: {
      basins: setJson(t.scope.basins),
      streams: setJson(t.scope.streams),
      access_tokens: setJson(t.scope.accessTokens),
      op_groups: t.scope.opGroups,
      ops: t.scope.ops,
    },
    expires_at: t.expiresAt,
    auto_prefix_streams: t.autoPrefixStreams,
  };
}
