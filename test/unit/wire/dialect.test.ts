/** wire/dialect.ts: the names of each dialect, and the renaming the client does at its edge. */
import { describe, expect, it } from "vitest";
import { HEADER_NAMES, headersFromDialect, headersInDialect, SESSION_CONTENT_TYPE } from "../../../src/wire/dialect.js";

describe("wire > dialect", () => {
  it("names each role svc-<role> and s2-<role>; sessions svc/proto and s2s/proto", () => {
    expect(HEADER_NAMES.svc).toEqual({
      basin: "svc-basin",
      format: "svc-format",
      "request-token": "svc-request-token",
      "encryption-key": "svc-encryption-key",
      "stream-config": "svc-stream-config",
      "provision-result": "svc-provision-result",
    });
    expect(Object.values(HEADER_NAMES.s2)).toEqual(
      Object.values(HEADER_NAMES.svc).map((n) => n.replace(/^svc-/, "s2-")),
    );
    expect(SESSION_CONTENT_TYPE).toEqual({ svc: "svc/proto", s2: "s2s/proto" });
  });

  it("renames svc's protocol headers and session type for s2, and nothing else", () => {
    const svc = {
      "svc-basin": "b",
      "svc-format": "base64",
      "content-type": "svc/proto",
      accept: "application/json",
      authorization: "Bearer t",
      "svc-lite-challenge": "n",
    };
    expect(headersInDialect(svc, "s2")).toEqual({
      "s2-basin": "b",
      "s2-format": "base64",
      "content-type": "s2s/proto",
      accept: "application/json",
      authorization: "Bearer t",
      "svc-lite-challenge": "n",
    });
    expect(headersInDialect({ "content-type": "application/json" }, "s2")).toEqual({
      "content-type": "application/json",
    });
    expect(headersInDialect(svc, "svc")).toBe(svc);
  });

  it("reads an answer's S2 names back as svc's; svc's own win when both came", () => {
    expect(headersFromDialect({ "s2-provision-result": "noop", "content-type": "application/json" }, "s2")).toEqual({
      "svc-provision-result": "noop",
      "content-type": "application/json",
    });
    expect(headersFromDialect({ "s2-provision-result": "noop", "svc-provision-result": "noop" }, "s2")).toEqual({
      "svc-provision-result": "noop",
    });
    const h = { "svc-provision-result": "created" };
    expect(headersFromDialect(h, "svc")).toBe(h);
  });
});
