/**
 * `svc apply -f spec.json`: ensure basins and streams match a declarative spec; idempotent,
 * for CI. `--dry-run` prints the plan (`+ ~ = -`), `--exit-code` exits 10 when changes are
 * pending (or were made), `--prune` deletes what the spec omits (needs `--yes`), `--export`
 * writes the current state as a spec, `--schema` prints the spec's JSON Schema.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { Command } from "commander";
import { roundedIntegerLiteral } from "../../bytes.js";
import { clientError } from "../../errors.js";
import { mergeSpecs, parseSpec, type Spec } from "../../rules/spec.js";
import { flagAction } from "../action.js";
import { executePlan } from "../apply/execute.js";
import { exportSpec } from "../apply/export.js";
import { makePlan, pending, pruneScopeText } from "../apply/plan.js";
import { doneSummary, planJson, planLines, planSummary } from "../apply/render.js";
import { SPEC_SCHEMA } from "../apply/schema.js";
import { EXIT } from "../exit-codes.js";
import { ExitRequest, usageError } from "../failure.js";
import { bool, type Flag, flagList, list, text } from "../flags/declare.js";
import { examples } from "../help.js";
import { confirmOrStop } from "../prompt.js";
import { parseBasinArg } from "../uri.js";

/** `--export` alone (true), or with the basins to export. */
const exportFlag: Flag<"--export [basins...]", true | string[] | undefined> = {
  term: "--export [basins...]",
  help: "print the current state as a spec (all basins, or the ones named)",
  parse: (raw: true | string[] | undefined) => raw,
};

const FLAGS = flagList(
  list("-f, --file <file>", "spec file (`-` for stdin; repeat to merge several)", undefined, { shown: false }),
  list("-i, --input <file>", undefined, undefined, { shown: false }),
  bool("--dry-run", "print the plan on stdout and change nothing"),
  bool("--exit-code", "exit 10 when changes are pending (with --dry-run) or were made"),
  bool(
    "--prune",
    'also delete the streams of the named basins that the spec does not name, and basins in the spec\'s "prune" scope (asks first; needs --yes without a terminal)',
  ),
  bool("-y, --yes", "confirm destructive changes (--prune)"),
  exportFlag,
  text("-o, --output <file>", "with --export: write the spec to this file"),
  bool("--schema", "print the spec's JSON Schema"),
);

async function readSource(path: string): Promise<string> {
  if (path !== "-") {
    try {
      return readFileSync(path, "utf8");
    } catch (e) {
      throw usageError(`cannot read spec file ${path}: ${(e as Error).message}`);
    }
  }
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** JSON.parse says "at position N"; people need line and column. */
function withLineColumn(message: string, text: string): string {
  const m = / (?:in JSON )?at position (\d+)(?: \(line \d+ column \d+\))?/.exec(message);
  if (!m) return message;
  const before = text.slice(0, Number(m[1]));
  const line = before.split("\n").length;
  const column = before.length - before.lastIndexOf("\n");
  return `${message.slice(0, m.index)} at line ${line}, column ${column}${message.slice(m.index + m[0].length)}`;
}

export async function loadSpec(paths: string[]): Promise<Spec> {
  const specs: Spec[] = [];
  for (const p of paths) {
    const name = p === "-" ? "<stdin>" : p;
    const text = await readSource(p);
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      if (e instanceof SyntaxError)
        throw clientError("bad_input", `${name}: not valid JSON: ${withLineColumn(e.message, text)}`);
      throw e;
    }
    const rounded = roundedIntegerLiteral(text);
    if (rounded !== undefined)
      throw clientError(
        "bad_input",
        `${name}: the number ${rounded} is not an integer (it would be rounded to ${Number(rounded)})`,
      );
    specs.push(parseSpec(doc, name));
  }
  return mergeSpecs(specs);
}

export function applyCommand(): Command {
  const cmd = new Command("apply").description("Make basins and streams match a JSON spec (idempotent; for CI)");
  flagAction(cmd, FLAGS, async (ctx, _args, opts) => {
    if (opts.schema) return ctx.out.jsonDoc(SPEC_SCHEMA);
    if (opts.export !== undefined) {
      const only = Array.isArray(opts.export) ? opts.export.map(parseBasinArg) : [];
      const spec = await exportSpec(await ctx.client(), only);
      const text = `${JSON.stringify(spec, null, 2)}\n`;
      if (opts.output && opts.output !== "-") {
        writeFileSync(opts.output, text);
        ctx.out.success(`spec written to ${opts.output}`);
      } else await ctx.out.jsonText(text);
      return;
    }
    const files = [...opts.file, ...opts.input];
    if (files.length === 0) throw usageError("missing --file SPEC.json (or --export, --schema)");
    const spec = await loadSpec(files);
    const client = await ctx.client();
    const plan = await makePlan(client, spec, opts.prune);
    const changes = pending(plan);
    if (opts.prune) ctx.out.info(pruneScopeText(spec));
    if (opts.dryRun) {
      if (ctx.flags.json) await ctx.out.jsonDoc(planJson(plan, true));
      else for (const l of planLines(plan)) await ctx.out.line(l);
      ctx.out.info(`Plan: ${planSummary(plan)}`);
    } else {
      const deletes = plan.actions.filter((a) => a.kind === "delete");
      if (deletes.length > 0 && !opts.yes) {
        for (const l of planLines({ actions: deletes })) ctx.out.info(l);
        await confirmOrStop(ctx.out, "Delete the resources above (--prune)?", false, "changed");
      }
      await executePlan(client, plan, ctx.out);
      if (ctx.flags.json) await ctx.out.jsonDoc(planJson(plan, false));
      ctx.out.success(changes === 0 ? "Done: nothing to change" : `Done: ${doneSummary(plan)}`);
    }
    if (opts.exitCode && changes > 0) throw new ExitRequest(EXIT.pending);
  });
  return examples(cmd, [
    "svc apply -f spec.json --dry-run",
    "svc apply -f spec.json",
    'svc apply -f spec.json --dry-run --exit-code || echo "drift detected"',
    "cat spec.json | svc apply -f -",
    "svc apply -f spec.json --prune --yes",
    "svc apply --export > spec.json",
  ]);
}
