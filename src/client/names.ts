/**
 * Name rules (protocol.md §10.1), checked at the client's entry points so that deeper code can
 * trust names and users get a local, precise message instead of a 400.
 */
import { clientError } from "../errors.js";
import { LIMITS } from "../types.js";

const BASIN_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

/** Why a basin name is invalid, or undefined when it is valid. */
export function basinNameProblem(name: string): string | undefined {
  if (name.length < LIMITS.basinNameMin || name.length > LIMITS.basinNameMax) {
    return `basin name must be ${LIMITS.basinNameMin} to ${LIMITS.basinNameMax} characters long (got ${name.length})`;
  }
  if (!/^[a-z0-9-]+$/.test(name)) return "basin name may contain only lowercase letters, digits and hyphens";
  if (!BASIN_NAME.test(name)) return "basin name must not begin or end with a hyphen";
  return undefined;
}

/** Why a stream name is invalid, or undefined when it is valid. */
export function streamNameProblem(name: string): string | undefined {
  const bytes = Buffer.byteLength(name, "utf8");
  if (bytes === 0) return "stream name must not be empty";
  if (bytes > LIMITS.streamNameMaxBytes) return `stream name must be at most ${LIMITS.streamNameMaxBytes} bytes (got ${bytes})`;
  if (name === "." || name === "..") return `stream name must not be "${name}"`;
  return undefined;
}

/** Why an access-token id is invalid, or undefined when it is valid. */
export function tokenIdProblem(id: string): string | undefined {
  const bytes = Buffer.byteLength(id, "utf8");
  if (bytes === 0 || bytes > LIMITS.tokenIdMaxBytes) return `access token id must be 1 to ${LIMITS.tokenIdMaxBytes} bytes`;
  if (id === "." || id === "..") return `access token id must not be "${id}"`;
  return undefined;
}

function check(problem: string | undefined, name: string): void {
  if (problem !== undefined) throw clientError("usage", `invalid name ${JSON.stringify(name)}: ${problem}`);
}

export function assertBasinName(name: string): void {
  check(basinNameProblem(name), name);
}

export function assertStreamName(name: string): void {
  check(streamNameProblem(name), name);
}

export function assertTokenId(id: string): void {
  check(tokenIdProblem(id), id);
}

