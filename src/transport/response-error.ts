/**
 * The one map from a non-2xx HTTP response to an SvcError (protocol.md §3.6, §11), for unary
 * requests and for sessions refused before their 200. Decoding the body is separate from
 * judging it: `errorFromResponse` in errors.ts judges.
 */
import { errorFromResponse, type SvcError } from "../errors.js";

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
  return errorFromResponse(res.status, body, hint !== undefined && Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined);
}
