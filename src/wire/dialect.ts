/**
 * The two dialects of the protocol (protocol.md §1.1): the same requests and answers under
 * this service's names or S2's. Only these differ:
 *
 *   role               svc                    s2
 *   basin              svc-basin              s2-basin              request
 *   format             svc-format             s2-format             request
 *   request-token      svc-request-token      s2-request-token      request
 *   encryption-key     svc-encryption-key     s2-encryption-key     request
 *   stream-config      svc-stream-config      s2-stream-config      request
 *   provision-result   svc-provision-result   s2-provision-result   response
 *   session type       svc/proto              s2s/proto             Content-Type, both ways
 *
 * Everything else (paths, bodies, status codes, frames, SSE events, `Last-Event-ID`,
 * `retry-after-ms`) is spelled the same in both.
 */
import type { Dialect } from "../types.js";

export type DialectRole =
  | "basin"
  | "format"
  | "request-token"
  | "encryption-key"
  | "stream-config"
  | "provision-result";
export const DIALECT_ROLES: readonly DialectRole[] = [
  "basin",
  "format",
  "request-token",
  "encryption-key",
  "stream-config",
  "provision-result",
];

/** The header names of a role, by dialect; lower case, as Node delivers them. */
export const HEADER_NAMES: Readonly<Record<Dialect, Readonly<Record<DialectRole, string>>>> = {
  svc: names("svc"),
  s2: names("s2"),
};

export const SESSION_CONTENT_TYPE: Readonly<Record<Dialect, string>> = { svc: "svc/proto", s2: "s2s/proto" };

function names(prefix: Dialect): Record<DialectRole, string> {
  return Object.fromEntries(DIALECT_ROLES.map((r) => [r, `${prefix}-${r}`])) as Record<DialectRole, string>;
}

/** svc's own header name (or session type) → its twin in `dialect`. */
const TO_S2 = new Map<string, string>(DIALECT_ROLES.map((r) => [HEADER_NAMES.svc[r], HEADER_NAMES.s2[r]]));
const FROM_S2 = new Map<string, string>(DIALECT_ROLES.map((r) => [HEADER_NAMES.s2[r], HEADER_NAMES.svc[r]]));

/**
 * Headers written with svc's names (lower-case keys), renamed for `dialect`: protocol header
 * names, and a session Content-Type. Other headers pass unchanged; svc returns them as given.
 */
export function headersInDialect(headers: Record<string, string>, dialect: Dialect): Record<string, string> {
  if (dialect === "svc") return headers;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    out[TO_S2.get(k) ?? k] = k === "content-type" && v === SESSION_CONTENT_TYPE.svc ? SESSION_CONTENT_TYPE.s2 : v;
  }
  return out;
}

/** Response headers (lower-case names) in `dialect`, renamed to svc's names for the code above. */
export function headersFromDialect(headers: Record<string, string>, dialect: Dialect): Record<string, string> {
  if (dialect === "svc") return headers;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    const svc = FROM_S2.get(k);
    if (svc === undefined || !(svc in headers)) out[svc ?? k] = v;
  }
  return out;
}
