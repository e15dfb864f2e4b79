/**
 * Bug (user trial): `svc basin list --limit 2 --no-auto-paginate --json` printed a bare array:
 * a script could not tell whether more pages existed, nor where to continue.
 *
 * Now a single page (`--no-auto-paginate`) says it, for every list command: `--json` prints
 * `{"<items>": [...], "has_more": bool, "next_start_after": name|null}`, `--ndjson` ends with
 * a `{"has_more", "next_start_after"}` line, text says it on stderr. The default
 * (auto-paginated) `--json` output is unchanged: a bare array of everything.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { cliEnv, createStreams, type Lite, startLite } from "../helpers/lite.js";

let lite: Lite;
let env: Record<string, string>;
const tag = `pg${Date.now().toString(36)}`;
const basins = [`${tag}-a1`, `${tag}-a2`, `${tag}-a3`];

beforeAll(async () => {
  lite = await startLite();
  env = cliEnv(lite);
  for (const b of basins) await createStreams(lite, b, b.endsWith("a1") ? ["s1", "s2", "s3"] : []);
  for (const id of ["t1", "t2", "t3"]) {
    const r = await runSvc(["token", "create", `${tag}/${id}`, "--ops", "account-metrics"], { env });
    expect(r.code, r.stderr).toBe(0);
  }
}, 60_000);
afterAll(async () => {
  await lite?.stop();
});

const cases = [
  ["basin list", ["basin", "list", "--prefix", tag], "basins", (o: { name: string }) => o.name, basins],
  [
    "stream list",
    ["stream", "list", `svc://${tag}-a1`],
    "streams",
    (o: { name: string }) => o.name,
    ["s1", "s2", "s3"],
  ],
  [
    "token list",
    ["token", "list", "--prefix", `${tag}/`],
    "access_tokens",
    (o: { id: string }) => o.id,
    ["t1", "t2", "t3"].map((t) => `${tag}/${t}`),
  ],
] as const;

describe.each(cases)("%s --no-auto-paginate", (_name, args, key, keyOf, names) => {
  const of = (items: unknown[]): string[] => items.map((i) => (keyOf as (o: unknown) => string)(i));

  it("--json: the page, has_more and where to continue", async () => {
    const first = await runSvc([...args, "--limit", "2", "--no-auto-paginate", "--json"], { env });
    expect(first.code, first.stderr).toBe(0);
    const doc = JSON.parse(first.stdout);
    expect(of(doc[key])).toEqual(names.slice(0, 2));
    expect(doc).toMatchObject({ has_more: true, next_start_after: names[1] });
    const next = JSON.parse(
      (
        await runSvc([...args, "--limit", "2", "--no-auto-paginate", "--json", "--start-after", doc.next_start_after], {
          env,
        })
      ).stdout,
    );
    expect(of(next[key])).toEqual(names.slice(2));
    expect(next).toMatchObject({ has_more: false, next_start_after: null });
  });

  it("--ndjson: the items, then one has_more line; text: a note on stderr", async () => {
    const nd = await runSvc([...args, "--limit", "2", "--no-auto-paginate", "--ndjson"], { env });
    const lines = nd.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(of(lines.slice(0, 2))).toEqual(names.slice(0, 2));
    expect(lines[2]).toEqual({ has_more: true, next_start_after: names[1] });
    const text = await runSvc([...args, "--limit", "2", "--no-auto-paginate"], { env });
    expect(text.stderr).toContain(`continue with --start-after '${names[1]}'`);
  });

  it("auto-paginated --json stays a bare array of everything", async () => {
    const all = JSON.parse((await runSvc([...args, "--json"], { env })).stdout);
    expect(Array.isArray(all)).toBe(true);
    expect(of(all)).toEqual(names);
  });
});
