/**
 * `svc diff LEFT RIGHT` (docs/design/cli.md, "Apply, diff and the init file"): compares effective configs (defaults resolved)
 * of two basins, two streams, or a stream and a basin's default stream config; or, given one
 * spec file (`svc diff spec.json`), the server against the spec (what `apply` would change).
 * Text (`--- LEFT`, `+++ RIGHT`, then `field: left → right`) or `--json`; `--exit-code` exits 10
 * when there are differences.
 */
import { existsSync } from "node:fs";
import { Command } from "commander";
import type { SvcClient } from "../../client/client.js";
import type { Flat } from "../../rules/spec.js";
import { flagAction } from "../action.js";
import { currentBasinFlat, currentStreamFlat, desiredStreamFlat, diff, type FieldChange } from "../apply/flat.js";
import { makePlan, pending } from "../apply/plan.js";
import { jsonValue, planJson, planLines, showValue } from "../apply/render.js";
import { EXIT } from "../exit-codes.js";
import { attempt, ExitRequest, usageError } from "../failure.js";
import { bool, flagList } from "../flags/declare.js";
import { examples } from "../help.js";
import { formatUri, parseBasinArg, parseBasinOrPrefix, type SvcUri } from "../uri.js";
import { loadSpec } from "./apply.js";

const FLAGS = flagList(
  bool("--exit-code", "exit 10 when there are differences"),
  bool("--tails", "two streams: compare their tails too (next position, last record's timestamp)"),
);

/** A side of the diff: its flat config, and whether it is a basin or a stream's config. */
async function side(client: SvcClient, u: SvcUri, asStream: boolean): Promise<Flat> {
  if (u.stream) {
    const uri = formatUri(u.basin, u.stream);
    return currentStreamFlat(
      await attempt("get stream", uri, () => client.basin(u.basin).streams.getConfig(u.stream!)),
    );
  }
  const basin = currentBasinFlat(
    await attempt("get basin", formatUri(u.basin), () => client.basins.getConfig(u.basin)),
  );
  // A basin against a stream: its default stream config, resolved as a new stream would get it.
  return asStream ? desiredStreamFlat({}, basin) : basin;
}

/** Two streams' tails as differences (`tail.seq_num`, `tail.timestamp`). */
async function tailChanges(client: SvcClient, l: SvcUri, r: SvcUri): Promise<FieldChange[]> {
  const tail = (u: SvcUri) =>
    attempt("check tail of", formatUri(u.basin, u.stream), () => client.basin(u.basin).stream(u.stream!).checkTail());
  const [a, b] = await Promise.all([tail(l), tail(r)]);
  const out: FieldChange[] = [];
  if (a.seqNum !== b.seqNum) out.push({ field: "tail.seq_num", from: a.seqNum, to: b.seqNum });
  if (a.timestamp !== b.timestamp) out.push({ field: "tail.timestamp", from: a.timestamp, to: b.timestamp });
  return out;
}

/** A side: `svc://basin`, `svc://basin/stream`, or a bare basin name (as everywhere a basin is expected). */
function parseSide(text: string): SvcUri {
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(text)) return parseBasinOrPrefix(text);
  if (text.includes("/"))
    throw usageError(`${JSON.stringify(text)} is not a basin name; write a stream as svc://basin/stream`);
  return { basin: parseBasinArg(text) };
}

function diffLines(left: string, right: string, changes: FieldChange[]): string[] {
  return [
    `--- ${left}`,
    `+++ ${right}`,
    ...changes.map((c) => `~ ${c.field}: ${showValue(c.field, c.from)} → ${showValue(c.field, c.to)}`),
  ];
}

export function diffCommand(): Command {
  const cmd = new Command("diff")
    .description("Compare the configs of two basins or streams, or the server with a spec file")
    .argument("<left>", "basin (name or svc://basin), svc://basin/stream, or a spec file (compared with the server)")
    .argument("[right]", "basin (name or svc://basin) or svc://basin/stream");
  flagAction(cmd, FLAGS, async (ctx, [left, right], f) => {
    const client = await ctx.client();
    let count: number;
    let compared = "the server and the spec";
    if (right === undefined) {
      if (!existsSync(left!))
        throw usageError(
          `nothing to compare ${JSON.stringify(left)} with: give two basins or streams, or one spec file (compared with the server)`,
        );
      const plan = await makePlan(client, await loadSpec([left!]), false);
      count = pending(plan);
      if (ctx.flags.json)
        await ctx.out.jsonDoc({ resource: "spec", left: "server", right: left, ...planJson(plan, true) });
      else if (count > 0) for (const l of planLines(plan).filter((l) => !/^\s*= /.test(l))) await ctx.out.line(l);
    } else {
      const [l, r] = [parseSide(left!), parseSide(right)];
      const [lName, rName] = [formatUri(l.basin, l.stream), formatUri(r.basin, r.stream)];
      const streams = l.stream !== undefined || r.stream !== undefined;
      const [a, b] = await Promise.all([side(client, l, streams), side(client, r, streams)]);
      const changes = diff(a, b);
      const both = l.stream !== undefined && r.stream !== undefined;
      if (f.tails && !both) throw usageError("--tails compares two streams");
      if (f.tails) changes.push(...(await tailChanges(client, l, r)));
      count = changes.length;
      const resource = both ? "stream" : streams ? "stream-vs-basin-defaults" : "basin";
      compared =
        resource === "stream-vs-basin-defaults"
          ? `the config of ${l.stream !== undefined ? lName : rName} and its basin's default stream config`
          : `the configs${f.tails ? " and tails" : ""} of ${lName} and ${rName}${both && !f.tails ? " (configs only: --tails compares their tails; records are not compared)" : ""}`;
      if (ctx.flags.json) {
        await ctx.out.jsonDoc({
          resource,
          left: lName,
          right: rName,
          differences: changes.map((c) => ({
            path: c.field,
            left: jsonValue(c.field, c.from),
            right: jsonValue(c.field, c.to),
          })),
        });
      } else if (count > 0) for (const line of diffLines(lName, rName, changes)) await ctx.out.line(line);
    }
    if (count === 0) ctx.out.success(`no differences between ${compared}`);
    if (f.exitCode && count > 0) throw new ExitRequest(EXIT.pending);
  });
  return examples(cmd, [
    "svc diff my-basin-01 my-basin-02",
    "svc diff svc://my-basin-01/events svc://my-basin-01/audit --json",
    "svc diff svc://my-basin-01/events svc://my-basin-01/events-copy --tails",
    "svc diff svc://my-basin-01/events svc://my-basin-01      # a stream against its basin's defaults",
    "svc diff spec.json --exit-code || echo drift               # the server against a spec",
  ]);
}
