/**
 * Basin and stream names for shell completion, from the server (`svc __complete names WORD`,
 * called by the bash script under `timeout`): one page, a short request timeout, no retries,
 * and silence on any failure, so a server that is away never stalls the prompt.
 */
import type { SvcClient } from "../../client/client.js";

const SCHEME = "svc://";
const NAMES_LIMIT = 100;

/** A name a shell line cannot hold as typed (a control character): never offered. */
const UNTYPABLE = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Candidates for `word`: `svc://basin/stream…` lists streams, otherwise basins (as URIs or bare
 * names). Where a stream is expected (`kind` "stream") a basin URI ends in `/`: the user goes on
 * to type the stream's name.
 */
export async function completeNames(
  client: SvcClient,
  word: string,
  kind: "basin" | "stream" = "basin",
): Promise<string[]> {
  const uri = word.startsWith(SCHEME);
  const rest = uri ? word.slice(SCHEME.length) : word;
  const slash = rest.indexOf("/");
  if (uri && slash > 0) {
    const basin = rest.slice(0, slash);
    const page = await client.basin(basin).streams.list({ prefix: rest.slice(slash + 1), limit: NAMES_LIMIT });
    return page.items.filter((s) => !UNTYPABLE.test(s.name)).map((s) => `${SCHEME}${basin}/${s.name}`);
  }
  // A partly typed scheme ("s", "svc:") still means URIs.
  const asUri = uri || (word.length > 0 && SCHEME.startsWith(word)) || word === "";
  const page = await client.basins.list({ prefix: asUri && !uri ? "" : rest, limit: NAMES_LIMIT });
  const end = kind === "stream" ? "/" : "";
  return page.items.map((b) => (asUri ? `${SCHEME}${b.name}${end}` : b.name));
}
