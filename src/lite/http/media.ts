/**
 * Content negotiation (protocol.md §2.0): only the FIRST media type of Accept and
 * Content-Type counts, parameters are ignored, comparison is case-insensitive.
 */
import { serverError } from "../../errors.js";
import { SESSION_CONTENT_TYPE } from "../../wire/dialect.js";
import type { Exchange } from "./exchange.js";

function firstMediaType(value: string | undefined): string {
  if (!value) return "";
  return value.split(",")[0]!.split(";")[0]!.trim().toLowerCase();
}

export function isJsonType(t: string): boolean {
  return t === "application/json" || /^application\/[^/]+\+json$/.test(t);
}

export function isProtobufType(t: string): boolean {
  return t === "application/protobuf" || t === "application/x-protobuf";
}

/** A session's Content-Type: `svc/proto`, or `s2s/proto` as S2 names it (wire/dialect.ts); the answer repeats it. */
export function isSessionType(t: string): boolean {
  return t === SESSION_CONTENT_TYPE.svc || t === SESSION_CONTENT_TYPE.s2;
}

export function contentType(ex: Exchange): string {
  return firstMediaType(ex.header("content-type"));
}

export function acceptType(ex: Exchange): string {
  return firstMediaType(ex.header("accept"));
}

/** A JSON endpoint's body must be declared JSON, or it is 400 bad_json. */
export function requireJsonContentType(ex: Exchange): void {
  if (!isJsonType(contentType(ex)))
    throw serverError("bad_json", "Expected request with `Content-Type: application/json`");
}
