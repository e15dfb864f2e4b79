import { expect } from "vitest";
import { SvcError } from "../../src/errors.js";

/** Runs `fn`, which must throw an SvcError, and returns that error for further assertions. */
export function svcErrorOf(fn: () => unknown): SvcError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(SvcError);
    return e as SvcError;
  }
  throw new Error("expected an SvcError, got a value");
}
