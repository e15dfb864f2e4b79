/** Account-level basin endpoints A1–A6 (protocol.md §2.2). */

import { badName } from "../../rules/names.js";
import { BASIN_SCOPES, type BasinScope, S2_SCOPES, SVC_SCOPE } from "../../types.js";
import type { Resources } from "../auth/decision.js";
import type { BasinMeta, StoredBasinConfig } from "../storage/types.js";
import { createBasin, deleteBasin, ensureBasin, getBasin, listBasins, reconfigureBasinOp } from "../store/basins.js";
import {
  basinConfigJson,
  basinInfoJson,
  ConfigParse,
  isObject,
  parseBasinConfig,
  parseBasinReconfig,
} from "./config-json.js";
import { bodyStep, type RequestContext } from "./context.js";
import { inS2Dialect } from "./dialect-of.js";
import type { Exchange } from "./exchange.js";
import { optionalJson, requiredJson } from "./json-body.js";
import { checkLocation } from "./locations.js";
import { bodyNameProblem, checkBasinName, listParams, requestToken } from "./params.js";

interface NewBasin {
  basin: string;
  config: StoredBasinConfig;
  token: string | undefined;
  /** The scope the basin is shown with (scopeFor). */
  scope: string;
}

/**
 * The seed's `scope` (svc's, or one of S2's: lite has one place, which each of them names), or
 * the newest clients' `location` (this server's one, else 422).
 */
function checkScope(p: ConfigParse, body: Record<string, unknown>, location: string): void {
  const v = body.scope;
  if (v !== undefined && v !== null && !BASIN_SCOPES.includes(v as BasinScope))
    p.fail(`scope must be "${SVC_SCOPE}" (or S2's ${S2_SCOPES.map((s) => `"${s}"`).join(", ")}) or null`);
  const l = body.location;
  if (l === undefined || l === null) return;
  if (typeof l !== "string") p.fail("location must be a string or null");
  checkLocation(l, location, "bad_json");
}

/**
 * The scope a basin is shown with, in every answer that shows one (listings included): S2's
 * to a request in S2's dialect (dialect-of.ts) or one that asks for an S2 scope (the one asked
 * for, else `aws:us-east-1`, whatever scope the basin was made with), svc's `cloud:us-east-1`
 * otherwise. S2's API knows only its own scopes, svc's only `cloud:us-east-1`.
 */
function scopeFor(ex: Exchange, body?: Record<string, unknown>): string {
  const asked = body?.scope;
  if (typeof asked === "string" && (S2_SCOPES as readonly string[]).includes(asked)) return asked;
  return inS2Dialect(ex) ? S2_SCOPES[0] : SVC_SCOPE;
}

export async function listBasinsHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const { prefix, startAfter, limit } = listParams(ex.query, "basin");
  // Only basins inside the token's basin set are listed (§9.3).
  const view = ctx.access.listing("basins", prefix);
  let page: { basins: BasinMeta[]; hasMore: boolean } = { basins: [], hasMore: false };
  if (view && "prefix" in view) page = await listBasins(ctx.store, view.prefix, startAfter, limit);
  else if (view && view.exact > startAfter)
    page = await listBasins(ctx.store, view.exact, startAfter, 1).then((p) => ({
      basins: p.basins.filter((b) => b.name === view.exact),
      hasMore: false,
    }));
  await ex.sendJson(200, {
    basins: page.basins.map((b) => basinInfoJson(b, ctx.location, scopeFor(ex))),
    has_more: page.hasMore,
  });
}

/** A2: the body names the basin, so the decision waits for it (BodyNamed). */
export const createBasinHandler = bodyStep<NewBasin>({
  async read(ex, head) {
    const token = requestToken(ex);
    const body = await requiredJson(ex);
    const p: ConfigParse = new ConfigParse();
    if (!isObject(body)) p.fail("the request body must be a JSON object");
    if (typeof body.basin !== "string") p.fail("missing field `basin` (a string)");
    bodyNameProblem(badName("basin", body.basin), body.basin, (m) => p.fail(m));
    checkScope(p, body, head.location);
    const config = parseBasinConfig(p, body.config);
    p.finish();
    return { basin: body.basin as string, config, token, scope: scopeFor(ex, body) };
  },
  names: (b) => ({ basin: b.basin }),
  async act(ex, ctx, b) {
    const { meta, result } = await createBasin(ctx.store, b.basin, b.config, b.token);
    // §2.2 A2 recommendation: 201 for a new basin, 200 for an idempotent replay.
    await ex.sendJson(
      result === "created" ? 201 : 200,
      basinInfoJson(meta, ctx.location, b.scope),
      ex.dialectHeaders("provision-result", result),
    );
  },
});

export async function getBasinHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const name = checkBasinName(ctx.params[0]!, "bad_path");
  await ex.sendJson(200, basinConfigJson((await getBasin(ctx.store, name)).config));
}

/** A4's basin, named before its access is decided (a bad name is 400 whatever the token). */
export function ensureBasinNames(_ex: Exchange, params: string[]): Resources {
  return { basin: checkBasinName(params[0]!, "bad_path") };
}

export async function ensureBasinHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const name = ctx.params[0]!;
  const body = await optionalJson(ex);
  const p: ConfigParse = new ConfigParse();
  if (body !== undefined && !isObject(body)) p.fail("the request body must be a JSON object");
  const obj: Record<string, unknown> = body ?? {};
  checkScope(p, obj, ctx.location);
  const reconfig = parseBasinReconfig(p, obj.config);
  p.finish();
  // §9.2: A4 is create-basin when it creates, reconfigure-basin when the basin exists: the
  // store tells which from the read the change is made on, and asks the decision.
  const { meta, result } = await ensureBasin(ctx.store, name, reconfig, ctx.access);
  await ex.sendJson(
    result === "created" ? 201 : 200,
    basinInfoJson(meta, ctx.location, scopeFor(ex, obj)),
    ex.dialectHeaders("provision-result", result),
  );
}

export async function reconfigureBasinHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const name = checkBasinName(ctx.params[0]!, "bad_path");
  const body = await requiredJson(ex);
  const p: ConfigParse = new ConfigParse();
  if (!isObject(body)) p.fail("the request body must be a JSON object");
  const reconfig = parseBasinReconfig(p, body);
  p.finish();
  const meta = await reconfigureBasinOp(ctx.store, name, reconfig);
  await ex.sendJson(200, basinConfigJson(meta.config));
}

export async function deleteBasinHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const name = checkBasinName(ctx.params[0]!, "bad_path");
  await deleteBasin(ctx.store, name);
  ex.sendEmpty(202);
}
