/**
 * The one map from a non-2xx HTTP response to an SvcError (protocol.md §3.6, §11), for unary
 * requests and for sessions refused before their 200. Decoding the body is separate from
 * judging it: `errorFromResponse` in errors.ts judges.
 */
import { errorFromResponse, SvcError } from "../errors.js";
import { MAX_RESPONSE_BYTES } from "./types.js";

interface ErrorResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Uint8Array;
}

export function responseError(res: ErrorResponse, url?: string): SvcError {
  let body: unknown;
  if (res.body.length > 0) {
    const text = Buffer.from(res.body.buffer, res.body.byteOffset, res.body.byteLength).toString("utf8");
    const type = header(res.headers, "content-type");
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    // The service answers errors with a JSON object (protocol.md §11.1), or with no body at all:
    // a body that is neither, and not even labelled JSON, came from another server.
    const object = typeof body === "object" && body !== null && !Array.isArray(body);
    if (!object && !/\bjson\b/i.test(type ?? "")) return foreignAnswer(res.status, type, text, url);
    // Labelled JSON but not an object (malformed): its text, on one line, as the message.
    if (!object) body = { message: text.replace(/\s*\n\s*/g, " ").slice(0, 200) };
  }
  const hint = header(res.headers, "retry-after-ms");
  const retryAfter = Number(hint);
  return errorFromResponse(
    res.status,
    body,
    hint !== undefined && Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined,
  );
}

function header(headers: ErrorResponse["headers"], name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Statuses a proxy or load balancer in front of the service answers itself (its own HTML
 * page): they keep their meaning (retried; an append in flight may have reached the service).
 */
const GATEWAY_STATUSES = new Set([408, 429, 500, 502, 503, 504]);

/**
 * A non-2xx answer that is not the service's (an HTML page, plain text): one line saying so,
 * with the page's title or first line. A gateway status keeps its meaning; any other comes
 * from a server that is not the service at all (a web server at the endpoint): it did nothing,
 * so it is not retried, an append is not in doubt, and it is a configuration error (exit 2).
 */
function foreignAnswer(status: number, contentType: string | undefined, text: string, url?: string): SvcError {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1];
  const firstLine = (title ?? text.replace(/<[^>]*>/g, " "))
    .split(/\r?\n/)
    .map((l) => l.replace(/\s+/g, " ").trim())
    .find((l) => l !== "");
  const said = firstLine ? `: ${JSON.stringify(firstLine.length > 80 ? `${firstLine.slice(0, 79)}…` : firstLine)}` : "";
  const type = contentType?.split(";")[0]?.trim() || "no content type";
  let where = "the server";
  try {
    if (url !== undefined) where = `the server at ${new URL(url).origin}`;
  } catch {
    // keep "the server"
  }
  if (GATEWAY_STATUSES.has(status)) {
    return new SvcError({
      code: `http_${status}`,
      message: `${where} answered HTTP ${status} with ${type}, not the service's JSON error (a proxy in front of it?)${said}`,
      origin: "server",
      status,
    });
  }
  return new SvcError({
    code: "not_the_service",
    message: `${where} is not the Stream Storage Service: it answered HTTP ${status} with ${type}${said}`,
    origin: "server",
    status,
    retryable: false,
    sideEffects: false,
  });
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
