/**
 * One request's access decision (protocol.md §9.2, §9.3), made once, by the router, from what
 * the request's route declares (http/routes.ts): its operation (or the operations its state
 * chooses between), the operations its content may add, and the resources it names. What
 * follows receives the decision and asks it: a handler what a listing may show, the store
 * which of create and reconfigure a PUT may do, a stream request whether a command record or
 * a chosen stream config is allowed. Nothing else judges a token's scope for a request.
 *
 * A token's scope never changes (a token is issued or revoked, never edited), so what is
 * decided when the request arrives holds for its whole life; whether the token still lives
 * is authentication's question (Auth.recheck), asked again as the request goes on.
 */
import { type SvcError, serverError } from "../../errors.js";
import type { Operation } from "../../types.js";
import type { StoredToken } from "../storage/types.js";
import { effectiveOps, inSet, narrowListing } from "./scope.js";

export type Principal = { kind: "open" } | { kind: "root" } | { kind: "token"; token: StoredToken };

/** The resources a request names (§9.3): each is checked against the matching set. */
export interface Resources {
  basin?: string;
  stream?: string;
  tokenId?: string;
}

type ScopeKind = "basins" | "streams" | "accessTokens";

/** What a request needs, as its route declares it. */
interface Need {
  /**
   * Its operation; or the operations its state chooses between (§9.2: a PUT creates or
   * reconfigures), of which at least one must be allowed before the request goes on.
   */
  ops: readonly Operation[];
  /** Operations its content may add (§9.2: `fence`, `trim`; `create-stream` for a chosen config), required where used. */
  also?: readonly Operation[];
  /** The resources its head names: path, Host, basin header. */
  names: Resources;
  /**
   * For a request whose body names resources too (a new basin, stream or token id): reads and
   * judges the body and returns what it names. Called only once the head is allowed, so a
   * request refused by its head is answered before its body arrives.
   */
  body?: () => Promise<Resources>;
}

/**
 * Decides a request: throws its 403 `permission_denied` when none of `need.ops` is allowed on
 * what it names, else returns the decision for every operation it declared.
 */
export async function decide(p: Principal, need: Need): Promise<Access> {
  const declared = new Set<Operation>([...need.ops, ...(need.also ?? [])]);
  if (p.kind !== "token") {
    if (need.body) await need.body();
    return new Access(p, declared, new Map());
  }
  const granted = effectiveOps(p.token.scope);
  let refusals = judge(p.token, granted, need.ops, need.names);
  refuseUnlessOne(need.ops, refusals);
  let names = need.names;
  if (need.body) {
    names = { ...names, ...(await need.body()) };
    refusals = judge(p.token, granted, need.ops, names);
    refuseUnlessOne(need.ops, refusals);
  }
  for (const [op, why] of judge(p.token, granted, need.also ?? [], names)) refusals.set(op, why);
  return new Access(p, declared, refusals);
}

/** Why each refused operation of `ops` is refused (§9.3: the operation first, then each resource). */
function judge(
  token: StoredToken,
  granted: ReadonlySet<Operation>,
  ops: readonly Operation[],
  names: Resources,
): Map<Operation, string> {
  const out = new Map<Operation, string>();
  const id = JSON.stringify(token.id);
  const uncovered = (
    [
      ["basins", names.basin, "basin"],
      ["streams", names.stream, "stream"],
      ["accessTokens", names.tokenId, "access token"],
    ] as const
  ).find(([kind, name]) => name !== undefined && !inSet(token.scope[kind], name));
  for (const op of ops) {
    if (!granted.has(op)) out.set(op, `access token ${id} does not permit operation \`${op}\``);
    else if (uncovered)
      out.set(op, `access token ${id} does not cover ${uncovered[2]} ${JSON.stringify(uncovered[1])}`);
  }
  return out;
}

function refuseUnlessOne(ops: readonly Operation[], refusals: ReadonlyMap<Operation, string>): void {
  if (ops.every((op) => refusals.has(op))) throw denied(refusals.get(ops[0]!)!);
}

function denied(message: string): SvcError {
  return serverError("permission_denied", message);
}

/** A request's decision: who asks, and which of the operations its route declared it may do. */
export class Access {
  constructor(
    readonly principal: Principal,
    private readonly declared: ReadonlySet<Operation>,
    private readonly refusals: ReadonlyMap<Operation, string>,
  ) {}

  /** Throws the 403 decided for `op`; asking for an operation the route did not declare is a bug. */
  require(op: Operation): void {
    if (!this.declared.has(op)) throw new Error(`operation \`${op}\` was not declared by the request's route`);
    const why = this.refusals.get(op);
    if (why !== undefined) throw denied(why);
  }

  /** What a listing with query `prefix` may show (§9.3: only what the token may see); undefined: nothing. */
  listing(kind: ScopeKind, prefix: string): { prefix: string } | { exact: string } | undefined {
    if (this.principal.kind !== "token") return { prefix };
    return narrowListing(this.principal.token.scope[kind], prefix);
  }

  /** Whether the principal's set of that kind holds `name` (what it may see of it, §9.3). */
  covers(kind: ScopeKind, name: string): boolean {
    return this.principal.kind !== "token" || inSet(this.principal.token.scope[kind], name);
  }
}

/** §9.4: the prefix an auto-prefix token puts before every stream name, else "". */
export function streamPrefixOf(p: Principal): string {
  return p.kind === "token" && p.token.autoPrefixStreams && p.token.scope.streams.kind === "prefix"
    ? p.token.scope.streams.value
    : "";
}
