/**
 * `list -l` rows, as `ls -l` lays them out: fixed-width columns first, the name last, so rows
 * stream while paginating and stay aligned whatever the names' lengths; a header row names the
 * columns. A name that would not read as one word (empty, spaces, quotes, backslashes, control
 * characters) is printed as a JSON string: `"svc://b/with space"`.
 */

const CREATED_WIDTH = 24; // 2026-02-24T12:00:00.000Z
const STATE_WIDTH = 8; // deleting

/** The name as one unambiguous word. */
export function quoteName(name: string): string {
  return name === "" || /[\s"'\\\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(name) ? JSON.stringify(name) : name;
}

/** One row: `created  state  name` (missing values as `-`). */
export function longRow(created: string | null | undefined, state: string, name: string): string {
  return `${(created || "-").padEnd(CREATED_WIDTH)}  ${state.padEnd(STATE_WIDTH)}  ${quoteName(name)}`;
}

export function longHeader(nameTitle: string): string {
  return `${"CREATED".padEnd(CREATED_WIDTH)}  ${"STATE".padEnd(STATE_WIDTH)}  ${nameTitle}`;
}
