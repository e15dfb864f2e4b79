/**
 * `apply --export`: the current state as a spec that `apply` reproduces exactly. Fields equal
 * to their defaults are left out (an omitted field means "default"); a stream field is left
 * out when it equals what the basin's defaults would give. Consumers' position streams
 * (`_svc-consumer/…`, docs/consumers.md) are svc's own and left out.
 */
import type { SvcClient } from "../../client/client.js";
import { formatSeconds } from "../../format/duration.js";
import type { Flat, FlatValue } from "../../rules/spec.js";
import { unflatten } from "../../rules/spec.js";
import { isPositionStream } from "../consumer/names.js";
import { attempt } from "../failure.js";
import { formatUri } from "../uri.js";
import { currentBasinFlat, currentStreamFlat, desiredBasinFlat, desiredStreamFlat } from "./flat.js";

function specValue(key: string, v: FlatValue): FlatValue {
  if (typeof v === "number" && (key.endsWith("retention_policy") || key.endsWith("min_age_secs")))
    return formatSeconds(v);
  return v;
}

/** Flat → spec-shaped config (`min_age_secs` is written as `min_age`, a duration string). */
function specConfig(fields: Flat): Record<string, unknown> | undefined {
  const out: Flat = {};
  for (const [k, v] of Object.entries(fields)) out[k.replace(/min_age_secs$/, "min_age")] = specValue(k, v);
  return Object.keys(out).length === 0 ? undefined : unflatten(out, false);
}

export async function exportSpec(client: SvcClient, only: string[]): Promise<unknown> {
  const names: string[] = [];
  if (only.length > 0) names.push(...only);
  else {
    await attempt("list basins", undefined, async () => {
      for await (const b of client.basins.listAll()) if (b.state !== "deleting" && !b.deleted_at) names.push(b.name);
    });
  }
  const basins = [];
  for (const name of names) {
    const cfg = await attempt("get basin", formatUri(name), () => client.basins.getConfig(name));
    const current = currentBasinFlat(cfg);
    const defaults = desiredBasinFlat({});
    const fields: Flat = {};
    for (const [k, v] of Object.entries(current)) if (v !== defaults[k]) fields[k] = v;
    const basinDesired = desiredBasinFlat(fields);
    const streams = [];
    const api = client.basin(name).streams;
    const streamNames: string[] = [];
    await attempt("list streams in", formatUri(name), async () => {
      for await (const s of api.listAll()) if (!s.deleted_at && !isPositionStream(s.name)) streamNames.push(s.name);
    });
    for (const s of streamNames) {
      const sc = currentStreamFlat(await attempt("get stream", formatUri(name, s), () => api.getConfig(s)));
      const base = desiredStreamFlat({}, basinDesired);
      const sf: Flat = {};
      for (const [k, v] of Object.entries(sc)) if (v !== base[k]) sf[k] = v;
      const config = specConfig(sf);
      streams.push(config ? { name: s, config } : { name: s });
    }
    const config = specConfig(fields);
    basins.push({ name, ...(config ? { config } : {}), ...(streams.length > 0 ? { streams } : {}) });
  }
  return { basins };
}
