/** `-F/--fencing-token` and `-m/--match-seq-num N|auto`, shared by append, fence and trim. */
import type { StreamClient } from "../../client/stream.js";
import { FencingTokenMismatchError, SeqNumMismatchError, SvcError } from "../../errors.js";
import { fencingTokenBytes } from "../../format/record-command.js";
import { type FlagValues, flagList, valueFlag } from "./declare.js";
import { parseCount } from "./numbers.js";

export const CONDITION_FLAGS = flagList(
  valueFlag("-F, --fencing-token <token>", "fail unless the stream's current fencing token is TOKEN", (raw, name) => {
    fencingTokenBytes(raw, name);
    return raw;
  }),
  // A number, or "auto": the tail, checked just before the first append.
  valueFlag(
    "-m, --match-seq-num <n>",
    "fail unless the first record gets seq num N; auto = the current tail",
    (raw, name): number | "auto" => (raw.trim() === "auto" ? "auto" : parseCount(raw, name)),
  ),
);

export type Conditions = FlagValues<typeof CONDITION_FLAGS>;

/** The conditions among a command's flags. */
export function conditionsOf(f: Conditions): Conditions {
  const c: Conditions = {};
  if (f.fencingToken !== undefined) c.fencingToken = f.fencingToken;
  if (f.matchSeqNum !== undefined) c.matchSeqNum = f.matchSeqNum;
  return c;
}

/**
 * Resolves `auto` against the tail. A stream that does not exist yet has tail 0: where the
 * basin creates streams on append, the append creates it (and fails with 412 if someone else
 * did first and appended); where it does not, the append itself says the stream is not found.
 */
export async function resolveMatch(c: Conditions, stream: StreamClient): Promise<number | undefined> {
  if (c.matchSeqNum !== "auto") return c.matchSeqNum;
  try {
    return (await stream.checkTail()).seqNum;
  } catch (e) {
    if (e instanceof SvcError && e.code === "stream_not_found") return 0;
    throw e;
  }
}

/** `word` as a shell would take it back: as it is when plain, else in single quotes. */
export function shellWord(word: string): string {
  return /^[\w.:@%+=,/-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** A hint for a failed condition (412) on stream `uri`, naming what the stream expects; `given`: the -F token. */
export function conditionHint(e: unknown, uri: string, given?: string): string | undefined {
  if (e instanceof SeqNumMismatchError)
    return `the stream's next position is ${e.expected}; use -m ${e.expected} (or -m auto) to append there`;
  if (e instanceof FencingTokenMismatchError) {
    // An empty token is no fence: the stream was never fenced, or its token was cleared.
    if (e.expected === "")
      return `${uri} has no fencing token: append without -F, or fence it first (\`svc fence ${uri} ${shellWord(given || "TOKEN")}\`)`;
    return `the stream is fenced with ${JSON.stringify(e.expected)}; only its holder should write (-F ${JSON.stringify(e.expected)})`;
  }
  return undefined;
}

/**
 * The fencing token of `stream` when it has one, found without writing: an append of one empty
 * record with the empty token and a match seq num no stream reaches. The service checks the
 * token first (protocol.md §8.3): a fenced stream answers 412 with its token, an unfenced one
 * 412 seq_num_mismatch; neither writes. Undefined when unfenced or when the probe fails.
 */
export async function currentFence(stream: StreamClient): Promise<string | undefined> {
  try {
    await stream.append(
      { records: [{ headers: [], body: new Uint8Array(0) }], matchSeqNum: Number.MAX_SAFE_INTEGER, fencingToken: "" },
      { signal: AbortSignal.timeout(2_000) },
    );
  } catch (e) {
    if (e instanceof FencingTokenMismatchError && e.expected !== "") return e.expected;
  }
  return undefined;
}
