/**
 * Endpoint routing (protocol.md §2.0).
 *
 * Account-level paths live at `{account}/v1`. Basin-level paths live at the basin endpoint:
 * written as `{basin}.<host>` it means host routing (the basin is in the host name); any other
 * value means direct routing, where every basin-level request carries `svc-basin: <name>`.
 * Endpoints may be given with or without the `/v1` suffix.
 */
import { clientError } from "../errors.js";

export interface BasinRoute {
  /** Base URL ending in `/v1`, without a trailing slash. */
  base: string;
  headers: Record<string, string>;
}

export function normalizeEndpoint(endpoint: string, what: string): string {
  let url: URL;
  try {
    url = new URL(endpoint.replaceAll("{basin}", "basin-placeholder"));
  } catch {
    throw clientError(
      "usage",
      `invalid ${what} ${JSON.stringify(endpoint)}: expected a URL such as http://127.0.0.1:4243`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw clientError("usage", `invalid ${what} ${JSON.stringify(endpoint)}: the scheme must be http or https`);
  }
  let e = endpoint.trim().replace(/\/+$/, "");
  if (!e.endsWith("/v1")) e += "/v1";
  return e;
}

/** True when the basin endpoint names the basin in its host (`https://{basin}.b.example`). */
export function isHostRouted(basinEndpoint: string): boolean {
  return /^[a-z]+:\/\/\{basin\}\./i.test(basinEndpoint);
}

export function basinRoute(basinEndpoint: string, accountEndpoint: string, basin: string): BasinRoute {
  if (basinEndpoint !== accountEndpoint && isHostRouted(basinEndpoint)) {
    return { base: basinEndpoint.replaceAll("{basin}", basin), headers: {} };
  }
  return { base: basinEndpoint.replaceAll("{basin}", encodeURIComponent(basin)), headers: { "svc-basin": basin } };
}

/** One path segment, percent-encoded (stream names and token ids may contain `/`). */
export function seg(name: string): string {
  return encodeURIComponent(name);
}

/** `?a=1&b=x` from defined values only. */
export function query(params: Record<string, string | number | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== "") q.set(k, String(v));
  }
  const s = q.toString();
  return s === "" ? "" : `?${s}`;
}
