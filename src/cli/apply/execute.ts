/**
 * Carries out a plan: basins first (create with a request token, or PATCH the changed fields),
 * then their streams, then deletions (streams before basins). Each step prints one status
 * line on stderr: `  basin b (created)`, `  stream b/s (config updated)`.
 */
import type { SvcClient } from "../../client/client.js";
import type { Flat } from "../../rules/spec.js";
import { unflatten } from "../../rules/spec.js";
import type { BasinScope } from "../../types.js";
import { attempt } from "../failure.js";
import type { Output } from "../output.js";
import { formatUri } from "../uri.js";
import type { Action, Plan } from "./plan.js";

const STATUS = {
  create: "created",
  update: "config updated",
  noop: "config unchanged",
  delete: "deletion requested",
} as const;

function changedFields(a: Action): Flat {
  const out: Flat = {};
  for (const c of a.changes ?? []) out[c.field] = c.to;
  return out;
}

async function run(client: SvcClient, a: Action): Promise<void> {
  if (a.resource === "basin") {
    const uri = formatUri(a.basin);
    if (a.kind === "create") {
      const scope = a.scope as BasinScope | undefined;
      await attempt("create basin", uri, () =>
        client.basins.create(a.basin, { config: unflatten(a.fields ?? {}), scope }),
      );
    } else if (a.kind === "update") {
      await attempt("reconfigure basin", uri, () => client.basins.reconfigure(a.basin, unflatten(changedFields(a))));
    } else if (a.kind === "delete") {
      await attempt("delete basin", uri, () => client.basins.delete(a.basin));
    }
    return;
  }
  const uri = formatUri(a.basin, a.stream);
  const streams = client.basin(a.basin).streams;
  if (a.kind === "create") {
    await attempt("create stream", uri, () => streams.create(a.stream!, { config: unflatten(a.fields ?? {}) }));
  } else if (a.kind === "update") {
    await attempt("reconfigure stream", uri, () => streams.reconfigure(a.stream!, unflatten(changedFields(a))));
  } else if (a.kind === "delete") {
    await attempt("delete stream", uri, () => streams.delete(a.stream!));
  }
}

export async function executePlan(client: SvcClient, plan: Plan, out: Output): Promise<void> {
  const deletes = plan.actions
    .filter((a) => a.kind === "delete")
    .sort((x, y) => (x.resource === y.resource ? 0 : x.resource === "stream" ? -1 : 1));
  for (const a of [...plan.actions.filter((a) => a.kind !== "delete"), ...deletes]) {
    await run(client, a);
    const name = a.resource === "basin" ? a.basin : `${a.basin}/${a.stream}`;
    out.info(`  ${a.resource} ${name} (${STATUS[a.kind]})`);
  }
}
