/**
 * `svc token create` flags → the issue request (protocol.md §3.5). Checked here, before any
 * request: one of each ⊕ pair, op names against the enum (kebab or snake case, with a
 * did-you-mean), `--op-groups` syntax, and an expiry in the future.
 *
 * S2's CLI spellings are accepted too, hidden (`issue-access-token`, docs/s2.md):
 * `--access-tokens-prefix/-exact` (svc's `--tokens-prefix/-exact`), `--op-group-perms`
 * (`--op-groups`), `--ops` given more than once, and S2's names of the metrics operations
 * (`get_basin_metrics` is `basin-metrics`).
 */

import { parseDuration } from "../../../format/duration.js";
import { didYouMean } from "../../../format/suggest.js";
import {
  type AccessTokenInfo,
  type AccessTokenScope,
  OPERATIONS,
  type ReadWritePermissions,
  type ResourceSet,
} from "../../../types.js";
import { usageError } from "../../failure.js";
import { bool, type FlagValues, flagList, list, text, valueFlag } from "../../flags/declare.js";
import { readTokenFile } from "./token-file.js";

const TOKEN_OPERATIONS: readonly string[] = OPERATIONS;

/** S2's CLI names of the metrics operations (`get_account_metrics`), whose API names are svc's. */
const S2_OPERATION_NAMES: Record<string, string> = {
  "get-account-metrics": "account-metrics",
  "get-basin-metrics": "basin-metrics",
  "get-stream-metrics": "stream-metrics",
};

/** The flags of `svc token create` that make the request. The expiry is judged against the clock in `tokenRequest`. */
export const TOKEN_FLAGS = flagList(
  text("--expires-in <duration>", "expire after this long (e.g. 30d, 12h)", { conflicts: "expiresAt" }),
  text("--expires-at <time>", "expire at this RFC 3339 time"),
  text("--basins-prefix <prefix>", "basins starting with this", { conflicts: "basinsExact" }),
  text("--basins-exact <name>", "only this basin"),
  text("--streams-prefix <prefix>", "streams starting with this", { conflicts: "streamsExact" }),
  text("--streams-exact <name>", "only this stream"),
  text("--tokens-prefix <prefix>", "token ids starting with this (for token management)", {
    conflicts: "tokensExact",
  }),
  text("--tokens-exact <id>", "only this token id"),
  // S2's spellings of the two above.
  text("--access-tokens-prefix <prefix>", undefined, { conflicts: "accessTokensExact" }),
  text("--access-tokens-exact <id>"),
  valueFlag(
    "--op-groups <groups>",
    "groups of operations, e.g. account=r,basin=rw,stream=w (what each grants: below)",
    (raw, name) => parseOpGroups(raw, name),
  ),
  // S2's spelling of --op-groups.
  valueFlag("--op-group-perms <groups>", undefined, (raw, name) => parseOpGroups(raw, name), { conflicts: "opGroups" }),
  list(
    "--ops <ops>",
    "operations, comma-separated or repeated (list-basins,append,…; snake_case works too)",
    (raw) => parseOps(raw),
    { shown: false },
  ),
  bool("--auto-prefix-streams", "prefix stream names with --streams-prefix on the way in, strip it on the way out"),
  text("--from-file <file>", "the request body as JSON (flags given too override it); - for stdin"),
);

type TokenFlags = FlagValues<typeof TOKEN_FLAGS>;

/** `list_basins` and `LIST-BASINS` are `list-basins`; an unknown name suggests the nearest. */
export function parseOps(text: string): string[] {
  const out: string[] = [];
  for (const raw of text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")) {
    const typed = raw.toLowerCase().replaceAll("_", "-");
    const op = S2_OPERATION_NAMES[typed] ?? typed;
    if (!TOKEN_OPERATIONS.includes(op)) {
      throw usageError(
        `--ops: unknown operation ${JSON.stringify(raw)}${didYouMean(typed, [...TOKEN_OPERATIONS, ...Object.keys(S2_OPERATION_NAMES)])}`,
        `operations: ${TOKEN_OPERATIONS.join(", ")}`,
      );
    }
    if (!out.includes(op)) out.push(op);
  }
  return out;
}

/** `account=rw,basin=r,stream=w` → op_groups; `name` is the flag it was given with. */
function parseOpGroups(text: string, name: string): NonNullable<AccessTokenScope["op_groups"]> {
  const groups: Record<string, ReadWritePermissions> = {};
  for (const part of text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")) {
    const m = /^(account|basin|stream)=(r|w|rw|wr)$/.exec(part);
    if (!m)
      throw usageError(
        `${name}: expected LEVEL=r|w|rw with LEVEL account, basin or stream (got ${JSON.stringify(part)})`,
        `example: ${name} account=r,basin=rw,stream=rw`,
      );
    groups[m[1]!] = { read: m[2]!.includes("r"), write: m[2]!.includes("w") };
  }
  return groups;
}

function resourceSet(prefix: string | undefined, exact: string | undefined, name: string): ResourceSet | undefined {
  if (prefix !== undefined && exact !== undefined)
    throw usageError(`--${name}-prefix and --${name}-exact cannot be used together`);
  if (prefix !== undefined) return { prefix };
  if (exact !== undefined) return { exact };
  return undefined;
}

function expiry(flags: TokenFlags, now: number): string | undefined {
  if (flags.expiresIn !== undefined && flags.expiresAt !== undefined)
    throw usageError("--expires-in and --expires-at cannot be used together");
  if (flags.expiresIn !== undefined) {
    let ms: number;
    try {
      ms = parseDuration(flags.expiresIn);
    } catch (e) {
      throw usageError(`--expires-in: ${(e as Error).message}`);
    }
    if (!(ms > 0)) throw usageError("--expires-in must be more than zero");
    if (now + ms > 8.64e15)
      throw usageError(`--expires-in ${flags.expiresIn} ends after the last time a timestamp can name (+275760-09-13)`);
    return new Date(now + ms).toISOString();
  }
  if (flags.expiresAt !== undefined) {
    const ms = Date.parse(flags.expiresAt);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(flags.expiresAt) || Number.isNaN(ms))
      throw usageError(
        `--expires-at must be an RFC 3339 time such as 2030-01-01T00:00:00Z (got ${JSON.stringify(flags.expiresAt)})`,
      );
    if (ms <= now) throw usageError("--expires-at must be in the future");
    return flags.expiresAt;
  }
  return undefined;
}

/** The issue request for token `id` from the flags (or `--from-file`, which flags extend). */
export function tokenRequest(id: string, flags: TokenFlags, now = Date.now()): AccessTokenInfo {
  const base: Partial<AccessTokenInfo> = flags.fromFile !== undefined ? readTokenFile(flags.fromFile) : {};
  const scope: AccessTokenScope = { ...(base.scope ?? {}) };
  const sets = [
    ["basins", flags.basinsPrefix, flags.basinsExact],
    ["streams", flags.streamsPrefix, flags.streamsExact],
    ["access_tokens", flags.tokensPrefix ?? flags.accessTokensPrefix, flags.tokensExact ?? flags.accessTokensExact],
  ] as const;
  for (const [key, prefix, exact] of sets) {
    const set = resourceSet(prefix, exact, key === "access_tokens" ? "tokens" : key);
    if (set) scope[key] = set;
  }
  const groups = flags.opGroups ?? flags.opGroupPerms;
  if (groups !== undefined) scope.op_groups = groups;
  if (flags.ops.length > 0) scope.ops = [...new Set(flags.ops.flat())];
  const info: AccessTokenInfo = { ...base, id, scope };
  const expiresAt = expiry(flags, now);
  if (expiresAt !== undefined) info.expires_at = expiresAt;
  if (flags.autoPrefixStreams) info.auto_prefix_streams = true;
  if (info.auto_prefix_streams && !(scope.streams && "prefix" in scope.streams))
    throw usageError("--auto-prefix-streams needs --streams-prefix");
  const grants = (scope.ops?.length ?? 0) > 0 || Object.values(scope.op_groups ?? {}).some((g) => g?.read || g?.write);
  if (!grants) throw usageError("the token would grant no operation: give --ops and/or --op-groups");
  return info;
}
