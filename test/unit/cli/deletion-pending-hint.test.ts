// `*_deletion_pending` hints said "try again", which then failed with 404: they name --wait.
import { describe, expect, it } from "vitest";
import { OperationError } from "../../../src/cli/failure.js";
import { describeError } from "../../../src/cli/sink.js";
import { SvcError } from "../../../src/errors.js";

const pending = (code: string) => new SvcError({ code, message: "being deleted", origin: "server", status: 409 });

describe("deletion pending hints", () => {
  it("a basin being deleted names basin delete --wait", () => {
    const { lines } = describeError(new OperationError("create basin", "svc://b1", pending("basin_deletion_pending")));
    expect(lines[1]).toBe(
      "hint: basin b1 is being deleted: `svc basin delete b1 --wait` waits until it is gone; then create it again if you need it",
    );
    expect(lines.join("\n")).not.toContain("try again");
  });

  it("a stream being deleted names stream delete URI --wait", () => {
    const { lines } = describeError(new OperationError("append", "svc://b1/s", pending("stream_deletion_pending")));
    expect(lines[1]).toContain("`svc stream delete svc://b1/s --wait` waits until it is gone");
  });
});
