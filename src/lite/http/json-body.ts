/** Reading JSON request bodies (protocol.md §2.0). */
import { SvcError, serverError } from "../../errors.js";
import { parseJsonText } from "../../wire/json.js";
import type { Exchange } from "./exchange.js";
import { contentType, isJsonType, requireJsonContentType } from "./media.js";

/** UTF-8 JSON text → value; every failure is 400 bad_json. */
export function parseJsonBuffer(buf: Buffer): unknown {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(buf);
  } catch {
    throw serverError("bad_json", "the request body is not valid UTF-8");
  }
  try {
    return parseJsonText(text);
  } catch (e) {
    if (e instanceof SvcError && e.code === "out_of_range") throw serverError("invalid", e.message);
    throw serverError("bad_json", (e as Error).message);
  }
}

/** A required JSON body: declared JSON and non-empty, else 400 bad_json. */
export async function requiredJson(ex: Exchange): Promise<unknown> {
  requireJsonContentType(ex);
  const buf = await ex.body();
  if (buf.length === 0) throw serverError("bad_json", "a JSON request body is required");
  return parseJsonBuffer(buf);
}

/**
 * An optional JSON body (PUT, §2.2 A4): read only when declared JSON; absent, empty or a
 * literal `null` all mean "no body".
 */
export async function optionalJson(ex: Exchange): Promise<unknown> {
  if (!isJsonType(contentType(ex))) {
    await ex.body(); // drain it: a body without a JSON Content-Type is ignored
    return undefined;
  }
  const buf = await ex.body();
  if (buf.toString("utf8").trim() === "") return undefined;
  const v = parseJsonBuffer(buf);
  return v === null ? undefined : v;
}
