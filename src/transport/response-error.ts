/**
 * The one map from a non-2xx HTTP response to an SvcError (protocol.md §3.6, §11), for unary
 * requests and for sessions refused before their 200. Decoding the body is separate from
 * judging it: `errorFromResponse` in errors.ts judges.
 */
import { errorFromResponse, SvcError } from "../errors.js";
import { MAX_RESPONSE_BYTES } from "./types.js";

export interface ErrorResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Uint8Array;
}

export function responseError(res: ErrorResponse): SvcError {
  let body: unknown;
  if (res.body.length > 0) {
    const text = Buffer.from(res.body.buffer, res.body.byteOffset, res.body.byteLength).toString("utf8");
    try {
      body = JSON.parse(text);
    } catch {
      body = { message: text.slice(0, 200) };
    }
  }
  const hint = res.headers["retry-after-ms"];
  const retryAfter = Number(Array.isArray(hint) ? hint[0] : hint);
  return errorFromResponse(
    res.status,
    body,
    hint !== undefined && Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined,
  );
}

/**
 * A response body past MAX_RESPONSE_BYTES: svc stops reading and drops the connection. Not
 * retryable (the server would answer the same); the request itself may have taken effect.
 */
export function responseTooLarge(url: string): SvcError {
  let origin = url;
  try {
    origin = new URL(url).origin;
  } catch {
    // keep the URL as given
  }
  return new SvcError({
    code: "too_large",
    origin: "client",
    retryable: false,
    sideEffects: true,
    message: `the response from ${origin} is larger than ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB, more than any answer svc expects; svc stopped reading it and closed the connection`,
  });
}

/** Whether a content-length header announces more than MAX_RESPONSE_BYTES. */
export function announcesTooMuch(headers: Record<string, string | string[] | undefined>): boolean {
  const v = headers["content-length"];
  const n = Number(Array.isArray(v) ? v[0] : v);
  return Number.isFinite(n) && n > MAX_RESPONSE_BYTES;
}
