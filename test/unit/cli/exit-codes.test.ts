import { describe, expect, it } from "vitest";
import { EXIT, exitCodeFor } from "../../../src/cli/exit-codes.js";
import { OperationError } from "../../../src/cli/failure.js";
import { describeError } from "../../../src/cli/sink.js";
import {
  clientError,
  errorFromResponse,
  FencingTokenMismatchError,
  SeqNumMismatchError,
  SvcError,
} from "../../../src/errors.js";

const server = (status: number, code: string) => errorFromResponse(status, { code, message: `${code} happened` });

describe('cli > exit codes (docs/design/cli.md, "Exit codes")', () => {
  it.each([
    [clientError("usage", "bad flag"), EXIT.usage],
    [clientError("bad_input", "bad line"), EXIT.badInput],
    [clientError("interrupted", "ctrl-c"), EXIT.interrupted],
    [clientError("connect_failed", "refused"), EXIT.unavailable],
    [clientError("client_timeout", "slow"), EXIT.unavailable],
    [clientError("network", "reset"), EXIT.unavailable],
    [clientError("protocol", "garbage"), EXIT.runtime],
    [clientError("consumer_taken_over", "another reader took the name"), EXIT.conflict],
    [clientError("consumer_not_found", "no such consumer"), EXIT.notFound],
    [server(401, "authn"), EXIT.auth],
    [server(403, "permission_denied"), EXIT.auth],
    [server(404, "basin_not_found"), EXIT.notFound],
    [server(404, "stream_not_found"), EXIT.notFound],
    [server(409, "resource_already_exists"), EXIT.conflict],
    [server(409, "basin_deletion_pending"), EXIT.conflict],
    [server(409, "transaction_conflict"), EXIT.conflict],
    [new SeqNumMismatchError(3), EXIT.conflict],
    [new FencingTokenMismatchError("w1"), EXIT.conflict],
    [errorFromResponse(416, { tail: { seq_num: 1, timestamp: 2 } }), EXIT.conflict],
    [server(400, "bad_json"), EXIT.usage],
    [server(422, "invalid"), EXIT.usage],
    [server(429, "rate_limited"), EXIT.unavailable],
    [server(503, "unavailable"), EXIT.unavailable],
    [server(502, "hot_server"), EXIT.unavailable],
    [server(501, "not_implemented"), EXIT.runtime],
    [errorFromResponse(418, undefined), EXIT.runtime],
    [new Error("boom"), EXIT.runtime],
  ])("%s → %d", (err, code) => {
    expect(exitCodeFor(err)).toBe(code);
  });

  it("a transient failure that may have taken effect is 'outcome unknown' for non-idempotent calls", () => {
    expect(exitCodeFor(server(503, "unavailable"), { idempotent: false })).toBe(EXIT.outcomeUnknown);
    expect(exitCodeFor(clientError("client_timeout", "slow"), { idempotent: false })).toBe(EXIT.outcomeUnknown);
    // Provably no effect: still "unavailable".
    expect(exitCodeFor(clientError("connect_failed", "refused"), { idempotent: false })).toBe(EXIT.unavailable);
    expect(exitCodeFor(server(429, "rate_limited"), { idempotent: false })).toBe(EXIT.unavailable);
  });
});

describe("cli > error sink", () => {
  it("prints `error: Failed to <op> <uri>: <message> (<status> <code>)` and a hint", () => {
    const e = new OperationError("get basin", "svc://my-basin-01", server(404, "basin_not_found"));
    const { lines, code, json } = describeError(e);
    expect(lines[0]).toBe(
      "error: Failed to get basin svc://my-basin-01: basin_not_found happened (404 basin_not_found)",
    );
    expect(lines[1]).toMatch(/^hint: /);
    expect(code).toBe(4);
    expect(json).toEqual({
      error: {
        status: 404,
        code: "basin_not_found",
        message: "basin_not_found happened",
        operation: "get basin",
        resource: "svc://my-basin-01",
        exit_code: 4,
      },
    });
  });

  it("names where the token came from on auth failures, never the token", () => {
    const e = new OperationError("list basins", undefined, server(401, "authn"));
    const { lines } = describeError(e, { tokenSource: "env SVC_ACCESS_TOKEN" });
    expect(lines.join("\n")).toContain("env SVC_ACCESS_TOKEN");
  });

  it("usage errors carry no status tag and point at --help", () => {
    const { lines, code } = describeError(clientError("usage", "missing stream name"), {
      commandPath: "svc stream create",
    });
    expect(lines).toEqual(["error: missing stream name", "hint: run `svc stream create --help` for usage"]);
    expect(code).toBe(2);
  });

  it("client errors show their code", () => {
    const { lines } = describeError(
      new OperationError(
        "list basins",
        undefined,
        new SvcError({ code: "connect_failed", message: "cannot connect", origin: "client" }),
      ),
    );
    expect(lines[0]).toBe("error: Failed to list basins: cannot connect (connect_failed)");
  });
});
