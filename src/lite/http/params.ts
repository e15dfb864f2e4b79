/**
 * Names, headers and query values (protocol.md §2.0, §10.1). A bad value is reported with
 * the code of where it appeared: path → bad_path, query → bad_query, header → bad_header,
 * JSON body → bad_json.
 */
import { type ServerCode, serverError, serverFail } from "../../errors.js";
import { basinNameProblem, basinPrefixProblem, checkName, hasNul, prefixProblem } from "../../rules/names.js";
import type { ReadParams, RecordFormat } from "../../types.js";
import { LIMITS } from "../../types.js";
import { parseFormat } from "../../wire/json.js";
import { decodeReadQuery, oneParam, u64Param } from "../../wire/read-query.js";
import type { Exchange } from "./exchange.js";

/** A NUL in a name is 422 wherever it comes from (rules/names.ts); other faults have `code`. */
export function checkBasinName(name: string, code: ServerCode): string {
  return checkName("basin", name, serverFail(code), serverFail("invalid"));
}

export function checkStreamName(name: string, code: ServerCode): string {
  return checkName("stream", name, serverFail(code), serverFail("invalid"));
}

/** A name from a JSON body: its faults are 400 bad_json (`fail`), a NUL 422 invalid. */
export function bodyNameProblem(problem: string | undefined, name: unknown, fail: (m: string) => void): void {
  if (problem === undefined) return;
  if (typeof name === "string" && hasNul(name)) throw serverError("invalid", problem);
  fail(problem);
}

/** A prefix or `start_after` value with a NUL: 422 (`what` names it). */
export function checkPrefix(value: string, what: string): void {
  const problem = prefixProblem(value);
  if (problem !== undefined) throw serverError("invalid", `${what} ${problem}`);
}

/**
 * The basin of a basin-level request: the `svc-basin` (or `s2-basin`) header, else a
 * `{basin}.` Host prefix (§2.0). Missing → 400 bad_header naming the header.
 */
export function requestBasin(ex: Exchange): string {
  const header = ex.dialectHeader("basin");
  if (header !== undefined) return checkBasinName(header.trim(), "bad_header");
  const host = (ex.host ?? "").replace(/:\d+$/, "");
  const dot = host.indexOf(".");
  if (dot > 0 && basinNameProblem(host.slice(0, dot)) === undefined) return host.slice(0, dot);
  throw serverError(
    "bad_header",
    `missing header ${quoted(ex.dialectNames("basin"))} (or a \`{basin}.\` Host prefix) naming the basin`,
  );
}

/** `svc-request-token` (or `s2-request-token`): optional, at most 36 bytes (§10.5). */
export function requestToken(ex: Exchange): string | undefined {
  const token = ex.dialectHeader("request-token");
  if (token === undefined) return undefined;
  if (Buffer.byteLength(token, "utf8") > LIMITS.maxRequestTokenBytes) {
    throw serverError(
      "bad_header",
      `${ex.dialectNames("request-token").join(" or ")} must be at most ${LIMITS.maxRequestTokenBytes} bytes`,
    );
  }
  return token;
}

/** `svc-format` (or `s2-format`): how record bytes are written in JSON (§4); bad → 400 bad_header naming it. */
export function requestFormat(ex: Exchange): RecordFormat {
  const value = ex.dialectHeader("format");
  if (value === undefined) return "raw";
  try {
    return parseFormat(value);
  } catch {
    throw serverError(
      "bad_header",
      `invalid ${ex.dialectNames("format").join(" or ")} ${JSON.stringify(value)}: expected raw or base64`,
    );
  }
}

function quoted(names: string[]): string {
  return names.map((n) => `\`${n}\``).join(" or ");
}

function single(q: URLSearchParams, name: string): string | undefined {
  return oneParam(q, name, serverFail("bad_query"));
}

/** A u64 query value as a safe integer; anything else (negative, fraction, huge) → bad_query. */
export function u64Query(q: URLSearchParams, name: string, max = Number.MAX_SAFE_INTEGER): number | undefined {
  return u64Param(q, name, serverFail("bad_query"), max);
}

/** The read a request's query asks for (wire/read-query.ts): bad values → bad_query, two starts → invalid. */
export function readQuery(q: URLSearchParams): ReadParams {
  return decodeReadQuery(q, { query: serverFail("bad_query"), invalid: serverFail("invalid") });
}

interface ListParams {
  prefix: string;
  startAfter: string;
  limit: number;
}

/** §2.0 pagination: limit 0 or above 1000 means 1000; start_after below prefix is allowed. */
export function listParams(q: URLSearchParams, kind: "basin" | "stream"): ListParams {
  const prefix = single(q, "prefix") ?? "";
  const startAfter = single(q, "start_after") ?? "";
  for (const [name, v] of [
    ["prefix", prefix],
    ["start_after", startAfter],
  ] as const) {
    checkPrefix(v, name);
    const problem = kind === "basin" ? basinPrefixProblem(v) : undefined;
    if (problem !== undefined) throw serverError("bad_query", `${name} ${problem}`);
    if (kind === "stream" && Buffer.byteLength(v, "utf8") > LIMITS.streamNameMaxBytes) {
      throw serverError("bad_query", `${name} must be at most ${LIMITS.streamNameMaxBytes} bytes`);
    }
  }
  const raw = u64Query(q, "limit");
  const limit = raw === undefined || raw === 0 || raw > LIMITS.listLimit ? LIMITS.listLimit : raw;
  return { prefix, startAfter, limit };
}
