/**
 * Plans for humans (`+ ~ = -` legend, `field: old → new`) and for machines (`--json`).
 * Streams are indented under their basin.
 */
import { formatSeconds } from "../../format/duration.js";
import type { FlatValue } from "../../rules/spec.js";
import type { Action, Plan } from "./plan.js";

const SIGN = { create: "+", update: "~", noop: "=", delete: "-" } as const;

export function showValue(field: string, v: FlatValue): string {
  if (v === null) return "(unset)";
  if (typeof v === "number" && (field.endsWith("retention_policy") || field.endsWith("min_age_secs")))
    return formatSeconds(v);
  return typeof v === "string" ? v : String(v);
}

/**
 * A field's value in `--json`, one type per field as the spec writes it: durations
 * (retention, delete-on-empty age) as humantime strings (`7d`; retention also `infinite`),
 * never a number here and a string there.
 */
export function jsonValue(field: string, v: FlatValue): FlatValue {
  if (typeof v === "number" && (field.endsWith("retention_policy") || field.endsWith("min_age_secs")))
    return formatSeconds(v);
  return v;
}

function jsonFields(fields: Record<string, FlatValue>): Record<string, FlatValue> {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, jsonValue(k, v)]));
}

function label(a: Action): string {
  return a.resource === "basin" ? `basin ${a.basin}` : `stream ${a.basin}/${a.stream}`;
}

export function planLines(plan: Plan): string[] {
  const lines: string[] = [];
  for (const a of plan.actions) {
    const indent = a.resource === "stream" ? "  " : "";
    lines.push(`${indent}${SIGN[a.kind]} ${label(a)}`);
    for (const [field, v] of Object.entries(a.fields ?? {}))
      lines.push(`${indent}    ${field}: ${showValue(field, v)}`);
    for (const c of a.changes ?? [])
      lines.push(`${indent}    ${c.field}: ${showValue(c.field, c.from)} → ${showValue(c.field, c.to)}`);
  }
  return lines;
}

export function planSummary(plan: Plan): string {
  const n = (k: Action["kind"]) => plan.actions.filter((a) => a.kind === k).length;
  return `${n("create")} to create, ${n("update")} to change, ${n("delete")} to delete, ${n("noop")} unchanged`;
}

export function doneSummary(plan: Plan): string {
  const n = (k: Action["kind"]) => plan.actions.filter((a) => a.kind === k).length;
  return `${n("create")} created, ${n("update")} changed, ${n("delete")} deleted, ${n("noop")} unchanged`;
}

export function planJson(plan: Plan, dryRun: boolean): Record<string, unknown> {
  return {
    dry_run: dryRun,
    pending: plan.actions.filter((a) => a.kind !== "noop").length,
    actions: plan.actions.map((a) => ({
      action: a.kind,
      resource: a.resource,
      basin: a.basin,
      ...(a.stream !== undefined ? { stream: a.stream } : {}),
      ...(a.fields ? { fields: jsonFields(a.fields) } : {}),
      ...(a.changes
        ? { changes: a.changes.map((c) => ({ ...c, from: jsonValue(c.field, c.from), to: jsonValue(c.field, c.to) })) }
        : {}),
    })),
  };
}
