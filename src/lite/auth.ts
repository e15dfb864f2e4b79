/**
 * Authentication and authorization of svc lite, in ONE place: the router calls
 * `authenticate` then `authorize` for every API request (protocol.md §9).
 *
 * Until access tokens land (a later issue), any bearer token, or none, is accepted, as the
 * reference dev server does (§9.1 "Dev-server profile"). The root token is still generated and
 * printed so clients configure themselves the way they will once auth is enforced; with
 * `--no-auth` the server will keep accepting anything.
 */
export type Operation =
  | "list-basins" | "create-basin" | "delete-basin" | "reconfigure-basin" | "get-basin-config"
  | "issue-access-token" | "revoke-access-token" | "list-access-tokens"
  | "list-streams" | "create-stream" | "delete-stream" | "get-stream-config" | "reconfigure-stream"
  | "check-tail" | "append" | "read" | "trim" | "fence"
  | "account-metrics" | "basin-metrics" | "stream-metrics"
  | "list-locations" | "get-default-location" | "set-default-location";

export interface Principal {
  /** `root`: the server's own token; `anonymous`: anything else while auth is not enforced. */
  kind: "root" | "anonymous";
}

export interface AuthOptions {
  rootToken: string;
  /** False with --no-auth. Enforcement itself arrives with the access-token issue. */
  enabled: boolean;
}

export class Auth {
  constructor(private readonly opts: AuthOptions) {}

  authenticate(authorization: string | undefined): Principal {
    const m = /^Bearer\s+(.+)$/i.exec(authorization ?? "");
    return { kind: m && m[1]!.trim() === this.opts.rootToken ? "root" : "anonymous" };
  }

  /** Throws 401/403 once scopes are enforced; every operation is allowed for now. */
  authorize(_principal: Principal, _op: Operation): void {}
}
