/**
 * Authentication of svc lite and its access tokens (protocol.md §9). The router authenticates
 * every API request here, then decides what it may do once (decision.ts); sessions re-check
 * their principal at every message, so revocation and expiry end them.
 *
 * Principals: `open` with --no-auth (everything allowed), `root` (the server's own token:
 * everything, never expires), `token` (an issued token and its scope).
 */
import { type SvcError, serverError } from "../../errors.js";
import { liteProof } from "../../local-lite.js";
import { type EitherKind, mapAnswer } from "../storage/answers.js";
import type { Scope, StoredToken } from "../storage/types.js";
import type { Access, Principal } from "./decision.js";
import { effectiveOps, setWithin } from "./scope.js";
import { mintSecret, sameDigest, sha256Hex, splitToken } from "./secret.js";
import type { IssueRequest } from "./token-info.js";

interface AuthOptions {
  /** The root token, when this node knows it (on PostgreSQL, a node that did not make it knows its hash only). */
  rootToken: string | undefined;
  /** The root token's SHA-256 (hex); made from `rootToken` when absent. */
  rootHash?: string;
  /** False with --no-auth: every request is allowed. */
  enabled: boolean;
}

/**
 * What auth needs of stored tokens, on either kind of backend: reads (at once on a local one,
 * storage/answers.ts) and conditional changes.
 */
export interface TokenBook {
  byKey(keyId: string): EitherKind<StoredToken | undefined>;
  byId(id: string): EitherKind<StoredToken | undefined>;
  list(prefix: string, after: string, limit: number): EitherKind<StoredToken[]>;
  /** False when a token with that id exists. */
  add(token: StoredToken): Promise<boolean>;
  /** False when no token `id` with key `keyId` is stored. */
  remove(id: string, keyId: string): Promise<boolean>;
  /** Counts the changes of tokens this node knows of (made here, or told of by other nodes). */
  readonly changes: number;
}

const authn = (message: string): SvcError => serverError("authn", message);
const denied = (message: string): SvcError => serverError("permission_denied", message);

export class Auth {
  private readonly rootHash: string;

  /**
   * @param now the clock by which tokens expire and are stamped: the store's (store.ts now(),
   *   the database's on PostgreSQL), which a test may move instead of waiting.
   */
  constructor(
    private readonly opts: AuthOptions,
    private readonly tokens: TokenBook,
    readonly now: () => number = Date.now,
  ) {
    const hash = opts.rootHash ?? (opts.rootToken === undefined ? undefined : sha256Hex(opts.rootToken));
    if (hash === undefined) throw new Error("auth needs the root token or its hash");
    this.rootHash = hash;
  }

  get enabled(): boolean {
    return this.opts.enabled;
  }

  /**
   * Whether `p`, judged by `recheck` when the tokens' change count was `changes`, still holds
   * now without asking again: nothing changed since, and it has not expired.
   */
  unchangedSince(p: Principal, changes: number): boolean {
    if (p.kind !== "token") return true;
    return this.tokens.changes === changes && !expired(p.token, this.now());
  }

  /** The tokens' change count now (see unchangedSince). */
  get tokenChanges(): number {
    return this.tokens.changes;
  }

  /**
   * The proof that this server knows the root token, for `nonce` on a connection whose local
   * side is address:port (local-lite.ts; http/health.ts); undefined on a node that knows only
   * the token's hash.
   */
  rootProof(nonce: string, address: string, port: number): string | undefined {
    return this.opts.rootToken === undefined ? undefined : liteProof(this.opts.rootToken, nonce, address, port);
  }

  /**
   * The principal of an `Authorization` header; 401 `authn` unless it names a live token.
   * A value at once when the token is known here (always on a local backend).
   */
  authenticate(authorization: string | undefined): EitherKind<Principal> {
    if (!this.opts.enabled) return { kind: "open" };
    if (authorization === undefined) throw authn("missing bearer token: send `Authorization: Bearer <token>`");
    const m = /^Bearer +(\S+) *$/i.exec(authorization);
    if (!m) throw authn("malformed Authorization header: expected `Bearer <token>`");
    const presented = m[1]!;
    if (sameDigest(sha256Hex(presented), this.rootHash)) return { kind: "root" };
    const parts = splitToken(presented);
    if (!parts) throw authn("unknown or revoked access token");
    return mapAnswer(this.tokens.byKey(parts.keyId), (token): Principal => {
      if (!token || !sameDigest(sha256Hex(parts.secret), token.hash)) throw authn("unknown or revoked access token");
      if (expired(token, this.now()))
        throw authn(`access token ${JSON.stringify(token.id)} expired at ${token.expiresAt}`);
      return { kind: "token", token };
    });
  }

  /** Throws 401 once the principal's token is revoked or expired (sessions call it per message). */
  recheck(p: Principal): EitherKind<void> {
    if (p.kind !== "token") return;
    return mapAnswer(this.tokens.byKey(p.token.keyId), (now) => {
      if (!now || now.id !== p.token.id || now.hash !== p.token.hash)
        throw authn(`access token ${JSON.stringify(p.token.id)} was revoked`);
      if (expired(now, this.now())) throw authn(`access token ${JSON.stringify(now.id)} expired at ${now.expiresAt}`);
    });
  }

  /** A8, once allowed: issues a token no broader than the requestor's; returns the secret (shown once). */
  async issue(access: Access, req: IssueRequest): Promise<string> {
    const p = access.principal;
    if (effectiveOps(req.scope).size === 0) throw serverError("invalid", "the scope grants no operation");
    const expiresAt = req.expiresAt === undefined ? requestorExpiry(p) : req.expiresAt;
    if (p.kind === "token") checkNoEscalation(p.token, req.scope, expiresAt);
    const minted = mintSecret();
    const token: StoredToken = {
      id: req.id,
      keyId: minted.keyId,
      hash: minted.hash,
      scope: req.scope,
      expiresAt,
      autoPrefixStreams: req.autoPrefixStreams,
      createdAt: new Date(this.now()).toISOString(),
    };
    if (!(await this.tokens.add(token)))
      throw serverError("resource_already_exists", `access token ${JSON.stringify(req.id)} already exists`);
    return minted.token;
  }

  /** A9, once allowed: 404 when unknown or already revoked. */
  async revoke(id: string): Promise<void> {
    const token = await this.tokens.byId(id);
    if (!token || !(await this.tokens.remove(id, token.keyId)))
      throw serverError("access_token_not_found", `access token ${JSON.stringify(id)} does not exist or was revoked`);
  }

  /** A7: tokens inside the principal's access-token set only. */
  async list(
    access: Access,
    prefix: string,
    after: string,
    limit: number,
  ): Promise<{ tokens: StoredToken[]; hasMore: boolean }> {
    const view = access.listing("accessTokens", prefix);
    if (!view) return { tokens: [], hasMore: false };
    if ("exact" in view) {
      const t = view.exact > after ? await this.tokens.byId(view.exact) : undefined;
      return { tokens: t ? [t] : [], hasMore: false };
    }
    const tokens = await this.tokens.list(view.prefix, after, limit + 1);
    return { tokens: tokens.slice(0, limit), hasMore: tokens.length > limit };
  }
}

function expired(t: StoredToken, now: number): boolean {
  return t.expiresAt !== null && Date.parse(t.expiresAt) <= now;
}

function requestorExpiry(p: Principal): string | null {
  return p.kind === "token" ? p.token.expiresAt : null;
}

/** §9.3 escalation: ops, each resource set and the expiry must lie within the requestor's. */
function checkNoEscalation(requestor: StoredToken, scope: Scope, expiresAt: string | null): void {
  const mine = effectiveOps(requestor.scope);
  const extra = [...effectiveOps(scope)].filter((op) => !mine.has(op));
  if (extra.length > 0)
    throw denied(`cannot issue a token broader than your own: you lack ${extra.map((o) => `\`${o}\``).join(", ")}`);
  for (const [kind, label] of [
    ["basins", "basin"],
    ["streams", "stream"],
    ["accessTokens", "access-token"],
  ] as const) {
    if (!setWithin(scope[kind], requestor.scope[kind]))
      throw denied(`cannot issue a token broader than your own: its ${label} set is wider`);
  }
  if (requestor.expiresAt !== null && (expiresAt === null || Date.parse(expiresAt) > Date.parse(requestor.expiresAt))) {
    throw denied(`cannot issue a token that outlives your own (${requestor.expiresAt})`);
  }
}
