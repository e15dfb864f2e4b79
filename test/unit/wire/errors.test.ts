/**
 * The error catalogue against protocol.md §11: one error type (SvcError) whose `code` is stable.
 *
 * The table below is copied by hand from §11.2: code, HTTP status, retryable, and "no side
 * effects guaranteed" (so `sideEffects` is its negation). 412 and 416 carry structured bodies
 * (§11.1) and map to their subclasses; unknown codes fall back to the HTTP status (§11.1, §11.3).
 */
import { describe, expect, it } from "vitest";
import {
  classify,
  errorFromResponse,
  FencingTokenMismatchError,
  RangeNotSatisfiableError,
  SERVER_CODES,
  SeqNumMismatchError,
  type ServerCode,
  SvcError,
  serverError,
} from "../../../src/errors.js";

// code, status, retryable, no side effects guaranteed
const CATALOGUE: [string, number, boolean, boolean][] = [
  ["bad_header", 400, false, true],
  ["bad_path", 400, false, true],
  ["bad_query", 400, false, true],
  ["bad_json", 400, false, true],
  ["bad_proto", 400, false, true],
  ["bad_frame", 400, false, true],
  ["decryption_failed", 400, false, true],
  ["authn", 401, false, true],
  ["permission_denied", 403, false, true],
  ["quota_exhausted", 403, false, true],
  ["access_token_not_found", 404, false, true],
  ["basin_not_found", 404, false, true],
  ["stream_not_found", 404, false, true],
  ["request_timeout", 408, true, false],
  ["resource_already_exists", 409, false, true],
  ["basin_deletion_pending", 409, false, true],
  ["stream_deletion_pending", 409, false, true],
  ["transaction_conflict", 409, true, true],
  ["invalid", 422, false, true],
  ["rate_limited", 429, true, true],
  ["client_hangup", 499, false, false],
  ["other", 500, true, false],
  ["storage", 500, true, false],
  ["not_implemented", 501, false, true],
  ["hot_server", 502, true, true],
  ["unavailable", 503, true, false],
  ["server_draining", 503, true, true],
  ["upstream_timeout", 504, true, false],
];

describe("catalogue (§11.2)", () => {
  it.each(CATALOGUE)("%s: status %i, retryable %s, no side effects %s", (code, status, retryable, noSideEffects) => {
    expect(SERVER_CODES).toHaveProperty(code);
    expect(SERVER_CODES[code as ServerCode]).toMatchObject({ status, retryable, sideEffects: !noSideEffects });
    expect(classify(code)).toMatchObject({ status, retryable, sideEffects: !noSideEffects });

    const fromServer = errorFromResponse(status, { code, message: "m" });
    expect(fromServer).toBeInstanceOf(SvcError);
    expect(fromServer).toMatchObject({
      code,
      status,
      retryable,
      sideEffects: !noSideEffects,
      origin: "server",
      message: "m",
    });

    const made = serverError(code as ServerCode, "m");
    expect(made).toMatchObject({ code, status, retryable, sideEffects: !noSideEffects, origin: "server" });
    expect(made.toBody()).toEqual({ code, message: "m" });
  });

  it("every ErrorInfo code of the catalogue is present (none missing)", () => {
    const codes = new Set(Object.keys(SERVER_CODES));
    expect(CATALOGUE.filter(([c]) => !codes.has(c))).toEqual([]);
  });

  it("the structured statuses are not retryable (§11.2)", () => {
    for (const code of ["seq_num_mismatch", "fencing_token_mismatch"])
      expect(classify(code)).toMatchObject({ status: 412, retryable: false });
    expect(classify("range_not_satisfiable")).toMatchObject({ status: 416, retryable: false });
  });
});

describe("errorFromResponse (§11.1)", () => {
  it('412 {"seq_num_mismatch": n} → SeqNumMismatchError with the next position', () => {
    const e = errorFromResponse(412, { seq_num_mismatch: 5 });
    expect(e).toBeInstanceOf(SeqNumMismatchError);
    expect(e).toMatchObject({ status: 412, retryable: false, origin: "server", expected: 5 });
    expect(e.toBody()).toEqual({ seq_num_mismatch: 5 });
  });

  it('412 {"seq_num_mismatch": 0} (a falsy value) is still recognised', () => {
    expect(errorFromResponse(412, { seq_num_mismatch: 0 })).toMatchObject({ expected: 0 });
    expect(errorFromResponse(412, { seq_num_mismatch: 0 })).toBeInstanceOf(SeqNumMismatchError);
  });

  it('412 {"fencing_token_mismatch": "tok"} → FencingTokenMismatchError with the current token', () => {
    const e = errorFromResponse(412, { fencing_token_mismatch: "tok" });
    expect(e).toBeInstanceOf(FencingTokenMismatchError);
    expect(e).toMatchObject({ status: 412, retryable: false, expected: "tok" });
    expect(e.toBody()).toEqual({ fencing_token_mismatch: "tok" });
  });

  it("412 with an empty current token (a cleared fence) is recognised", () => {
    const e = errorFromResponse(412, { fencing_token_mismatch: "" });
    expect(e).toBeInstanceOf(FencingTokenMismatchError);
    expect(e).toMatchObject({ expected: "" });
  });

  it('416 {"tail": {...}} → RangeNotSatisfiableError with the tail, including {0,0}', () => {
    const e = errorFromResponse(416, { tail: { seq_num: 2, timestamp: 1767225600000 } });
    expect(e).toBeInstanceOf(RangeNotSatisfiableError);
    expect(e).toMatchObject({ status: 416, retryable: false, tail: { seqNum: 2, timestamp: 1767225600000 } });
    expect(e.toBody()).toEqual({ tail: { seq_num: 2, timestamp: 1767225600000 } });
    expect(errorFromResponse(416, { tail: { seq_num: 0, timestamp: 0 } })).toMatchObject({
      tail: { seqNum: 0, timestamp: 0 },
    });
  });

  it.each<[number, boolean, boolean]>([
    [400, false, false],
    [403, false, false],
    [404, false, false],
    [409, false, false],
    [422, false, false],
    [408, true, true],
    [429, true, false],
    [500, true, true],
    [502, true, false],
    [503, true, true],
    [504, true, true],
  ])("an unknown code with status %i falls back to the status: retryable %s", (status, retryable, sideEffects) => {
    const e = errorFromResponse(status, { code: "brand_new_code", message: "m" });
    expect(e).toBeInstanceOf(SvcError);
    expect(e).toMatchObject({ code: "brand_new_code", status, retryable, origin: "server" });
    expect(e.sideEffects).toBe(sideEffects);
  });

  it.each<[string, number, boolean]>([
    ["invalid_argument", 400, false],
    ["invalid_stream_config", 400, false],
    ["deadline_exceeded", 408, true],
    ["timeout", 408, true],
    ["basin_creating", 503, true],
    ["stream_exists", 409, false],
    ["stream_being_deleted", 409, false],
    ["internal", 500, true],
    ["authz", 403, false],
  ])("legacy code %s (§11.3) with status %i keeps its status; retryable %s", (code, status, retryable) => {
    const e = errorFromResponse(status, { code, message: "m" });
    expect(e).toMatchObject({ code, status, retryable });
  });

  it("an empty or non-JSON body (framework 404/405) still yields a typed error by status", () => {
    expect(errorFromResponse(404, undefined)).toMatchObject({ status: 404, retryable: false, origin: "server" });
    expect(errorFromResponse(405, "")).toMatchObject({ status: 405, retryable: false });
    expect(errorFromResponse(503, null)).toMatchObject({ status: 503, retryable: true });
  });

  it("a 412 or 416 with an unexpected body does not crash", () => {
    expect(errorFromResponse(412, { code: "x", message: "m" })).toMatchObject({ status: 412, retryable: false });
    expect(errorFromResponse(416, {})).toMatchObject({ status: 416, retryable: false });
  });

  it("the retry-after-ms hint is kept", () => {
    expect(errorFromResponse(429, { code: "rate_limited", message: "slow down" }, 250)).toMatchObject({
      retryable: true,
      retryAfterMs: 250,
    });
  });
});
