/**
 * How many read sessions (svc/proto and SSE) one holder may have open at once (docs/security.md,
 * section 2), as append sessions have their shares of the in-flight budget (append-limits.ts):
 *
 *   a principal    SVC_LITE_READ_SESSIONS_PER_TOKEN (10,000): the sessions of one bearer token,
 *                  the root token included, on any connections (none with --no-auth)
 *   a connection   SVC_LITE_READ_SESSIONS_PER_CONNECTION (1000): an HTTP/2 connection's
 *
 * A follower costs lite a few KiB and, once it stops reading, about one batch (io.ts): the caps
 * bound what one token, or one connection, can make lite hold. One more is refused before its
 * answer starts: 429 `rate_limited`, naming the cap.
 */
import { serverError } from "../../errors.js";

export class ReadLimits {
  private readonly principals = new Map<string, number>();
  private readonly connections = new WeakMap<object, number>();

  constructor(
    private readonly perPrincipal: number,
    private readonly perConnection: number,
  ) {}

  /** Counts a new session, or throws 429; the function returned ends it (once). */
  open(principal: string | undefined, connection: object): () => void {
    const onConnection = this.connections.get(connection) ?? 0;
    if (onConnection >= this.perConnection)
      throw serverError(
        "rate_limited",
        `this connection has ${onConnection} read sessions open, the most one may (SVC_LITE_READ_SESSIONS_PER_CONNECTION)`,
      );
    const ofPrincipal = principal === undefined ? 0 : (this.principals.get(principal) ?? 0);
    if (principal !== undefined && ofPrincipal >= this.perPrincipal)
      throw serverError(
        "rate_limited",
        `this token has ${ofPrincipal} read sessions open, the most one may (SVC_LITE_READ_SESSIONS_PER_TOKEN)`,
      );
    this.connections.set(connection, onConnection + 1);
    if (principal !== undefined) this.principals.set(principal, ofPrincipal + 1);
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      this.connections.set(connection, (this.connections.get(connection) ?? 1) - 1);
      if (principal === undefined) return;
      const left = (this.principals.get(principal) ?? 1) - 1;
      if (left === 0) this.principals.delete(principal);
      else this.principals.set(principal, left);
    };
  }
}
