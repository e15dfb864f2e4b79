/**
 * Name rules (protocol.md §10.1), judged the same way by the client (before a request) and by
 * lite (on every path, header and body that carries a name):
 *
 *   basin name       8..48 characters of [a-z0-9-], not beginning or ending with a hyphen
 *   stream name      1..512 bytes of UTF-8, not "." or ".."
 *   access token id  1..96 bytes of UTF-8, not "." or ".."
 *
 * A lone UTF-16 surrogate is not Unicode text: UTF-8 cannot carry it (encoding it would store
 * U+FFFD instead), so a name holding one is refused rather than silently changed.
 *
 * NUL (U+0000) is refused in every name, token id and name prefix: PostgreSQL's text cannot
 * hold it (lmdb could, so the two storages answered differently), C strings end at it, and no
 * name needs it. Wherever a name comes from (path, query, header, body), lite answers a NUL
 * with 422 `invalid` (`checkName`'s `failNul`), not with the 400 of that place: the name is
 * well formed, and the service refuses it.
 *
 * Each `…Problem` returns the rule a name breaks, without naming the subject ("must not be
 * empty"), or undefined; `badName` makes the whole message and `checkName` throws it as the
 * caller's error (its code and origin).
 */

import { hasLoneSurrogate } from "../bytes.js";
import type { Fail } from "../errors.js";
import { LIMITS } from "../types.js";

export type NameKind = "basin" | "stream" | "token";

/** NUL anywhere in a name, id or prefix (see above). */
export function hasNul(text: string): boolean {
  return text.includes("\u0000");
}

const NUL_PROBLEM = "must not contain NUL (U+0000)";

/** What is wrong with a name prefix or `start_after` value (their other limits are the caller's), or undefined. */
export function prefixProblem(text: string): string | undefined {
  return hasNul(text) ? NUL_PROBLEM : undefined;
}

const BASIN_CHARS = /^[a-z0-9-]+$/;
const BASIN_PREFIX = /^(?:[a-z0-9][a-z0-9-]*)?$/;

/**
 * What is wrong with a prefix (or `start_after`) of basin names: it must be one's beginning,
 * at most as long as a name, of the names' characters, not starting with a hyphen ("" is one).
 */
export function basinPrefixProblem(text: string): string | undefined {
  if (hasNul(text)) return NUL_PROBLEM;
  if (text.length > LIMITS.basinNameMax || !BASIN_PREFIX.test(text))
    return `must be at most ${LIMITS.basinNameMax} characters of [a-z0-9-], starting with a letter or digit`;
  return undefined;
}

export function basinNameProblem(name: string): string | undefined {
  if (hasNul(name)) return NUL_PROBLEM;
  if (name.length < LIMITS.basinNameMin || name.length > LIMITS.basinNameMax) {
    return `must be ${LIMITS.basinNameMin} to ${LIMITS.basinNameMax} characters long (got ${name.length})`;
  }
  if (!BASIN_CHARS.test(name)) return "may contain only lowercase letters, digits and hyphens";
  if (name.startsWith("-") || name.endsWith("-")) return "must not begin or end with a hyphen";
  return undefined;
}

/** Stream names and access-token ids: UTF-8 text of 1..`maxBytes` bytes, not a dot segment. */
function textNameProblem(name: string, maxBytes: number): string | undefined {
  if (hasNul(name)) return NUL_PROBLEM;
  const bytes = Buffer.byteLength(name, "utf8");
  if (bytes === 0) return "must not be empty";
  if (bytes > maxBytes) return `must be at most ${maxBytes} UTF-8 bytes (got ${bytes})`;
  if (name === "." || name === "..") return 'must not be "." or ".."';
  if (hasLoneSurrogate(name))
    return "must be Unicode text, but it holds a lone UTF-16 surrogate, which UTF-8 cannot carry";
  return undefined;
}

export function streamNameProblem(name: string): string | undefined {
  return textNameProblem(name, LIMITS.streamNameMaxBytes);
}

export function tokenIdProblem(id: string): string | undefined {
  return textNameProblem(id, LIMITS.tokenIdMaxBytes);
}

const RULES: Record<NameKind, { title: string; problem: (name: string) => string | undefined }> = {
  basin: { title: "basin name", problem: basinNameProblem },
  stream: { title: "stream name", problem: streamNameProblem },
  token: { title: "access token id", problem: tokenIdProblem },
};

/** A name as a message shows it: quoted, escaped, and cut after 60 characters (it may be huge). */
function shown(name: string): string {
  const chars = [...name];
  return JSON.stringify(chars.length > 64 ? `${chars.slice(0, 60).join("")}…` : name);
}

/** The message for a name that breaks its rule (`invalid basin name "x": …`), or undefined. */
export function badName(kind: NameKind, name: string): string | undefined {
  const rule = RULES[kind];
  const problem = rule.problem(name);
  return problem === undefined ? undefined : `invalid ${rule.title} ${shown(name)}: ${problem}`;
}

/** Returns `name` when it keeps its rule; throws `fail(message)` otherwise (`failNul` for a NUL in it). */
export function checkName(kind: NameKind, name: string, fail: Fail, failNul: Fail = fail): string {
  const message = badName(kind, name);
  if (message !== undefined) throw (hasNul(name) ? failNul : fail)(message);
  return name;
}
