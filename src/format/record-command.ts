/**
 * Command records as the CLI shows and makes them (protocol.md §8.5; the rules are
 * rules/commands.ts): what one does, in the S2 CLI's words, and the records of `svc fence`
 * and `svc trim`, whose arguments are usage errors when they break a rule.
 */
import { lossyUtf8 } from "../bytes.js";
import { clientError } from "../errors.js";
import {
  type Command,
  fenceRecord,
  fencingTokenProblem,
  isCommandRecord,
  readCommand,
  trimRecord,
} from "../rules/commands.js";
import type { AppendRecord, Header } from "../types.js";

/** What a command record does; `unknown` when it breaks a rule (another operation, a bad payload). */
export type CommandRecord = Command | { op: "unknown"; name: string };

/** The token's bytes; a usage error (naming `what`) when it is over 36 UTF-8 bytes. */
export function fencingTokenBytes(token: string, what = "fencing token"): Uint8Array {
  const problem = fencingTokenProblem(token);
  if (problem !== undefined) throw clientError("usage", `${what} ${problem}`);
  return Buffer.from(token, "utf8");
}

export function fenceCommandRecord(token: string): AppendRecord {
  fencingTokenBytes(token, "the new fencing token");
  return fenceRecord(token);
}

export function trimCommandRecord(point: number): AppendRecord {
  if (!Number.isSafeInteger(point) || point < 0)
    throw clientError("usage", `trim point must be a non-negative integer (got ${point})`);
  return trimRecord(point);
}

/** What a command record does; undefined for ordinary records. */
export function parseCommandRecord(record: { headers: Header[]; body: Uint8Array }): CommandRecord | undefined {
  if (!isCommandRecord(record)) return undefined;
  return readCommand(record) ?? { op: "unknown", name: lossyUtf8(record.headers[0]!.value) };
}

/**
 * The S2 CLI's wording (docs/design/s2-compatibility.md, "The S2 CLI"): `new fencing token "x"`,
 * `trim to 3`, `unknown command`.
 */
export function describeCommand(cmd: CommandRecord): string {
  switch (cmd.op) {
    case "fence":
      return `new fencing token ${JSON.stringify(cmd.token)}`;
    case "trim":
      return `trim to ${cmd.trimPoint}`;
    default:
      return "unknown command";
  }
}
