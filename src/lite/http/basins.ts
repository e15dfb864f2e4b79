/** Account-level basin endpoints A1–A6 (protocol.md §2.2). */
import { serverError } from "../../errors.js";
import { createBasin, deleteBasin, ensureBasin, getBasin, listBasins, reconfigureBasinOp } from "../store/basins.js";
import type { RequestContext } from "./context.js";
import {
  basinConfigJson,
  basinInfoJson,
  ConfigParse,
  isObject,
  parseBasinConfig,
  parseBasinReconfig,
} from "./config-json.js";
import type { Exchange } from "./exchange.js";
import { optionalJson, requiredJson } from "./json-body.js";
import type { BasinMeta } from "../storage/types.js";
import { checkLocation } from "./locations.js";
import { badName } from "../../rules/names.js";
import { checkBasinName, listParams, requestToken } from "./params.js";

/**
 * S2's basin scopes (its published API: `aws:us-east-1`, …): lite has one place, so each of
 * them, like svc's `cloud:us-east-1`, means this server.
 */
const S2_SCOPES = ["aws:us-east-1", "aws:us-west-2", "aws:eu-north-1"];

/** The seed's `scope` (svc's, or one of S2's), or the newest clients' `location` (this server's one, else 422). */
function checkScope(p: ConfigParse, body: Record<string, unknown>, location: string): void {
  const v = body.scope;
  if (v !== undefined && v !== null && v !== "cloud:us-east-1" && !S2_SCOPES.includes(v as string))
    p.fail(`scope must be "cloud:us-east-1" (or S2's ${S2_SCOPES.map((s) => `"${s}"`).join(", ")}) or null`);
  const l = body.location;
  if (l === undefined || l === null) return;
  if (typeof l !== "string") p.fail("location must be a string or null");
  checkLocation(l, location, "bad_json");
}

/**
 * The scope a basin is shown with: S2's (`aws:us-east-1`) to a request in S2's dialect (S2's
 * header names, or an S2 scope asked for), svc's `cloud:us-east-1` otherwise.
 */
function scopeFor(ex: Exchange, body?: Record<string, unknown>): string {
  const asked = body?.scope;
  if (typeof asked === "string" && S2_SCOPES.includes(asked)) return asked;
  return ex.dialectNames("basin")[0] === "s2-basin" ? "aws:us-east-1" : "cloud:us-east-1";
}

export async function listBasinsHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const { prefix, startAfter, limit } = listParams(ex.query, "basin");
  // Only basins inside the token's basin set are listed (§9.3).
  const view = ctx.auth.listing(ctx.principal, "basins", prefix);
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

export async function createBasinHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const token = requestToken(ex);
  const body = await requiredJson(ex);
  const p: ConfigParse = new ConfigParse();
  if (!isObject(body)) p.fail("the request body must be a JSON object");
  if (typeof body.basin !== "string") p.fail("missing field `basin` (a string)");
  const problem = badName("basin", body.basin);
  if (problem) p.fail(problem);
  checkScope(p, body, ctx.location);
  const config = parseBasinConfig(p, body.config);
  p.finish();
  ctx.auth.authorize(ctx.principal, "create-basin", { basin: body.basin });
  const { meta, result } = await createBasin(ctx.store, body.basin, config, token);
  // §2.2 A2 recommendation: 201 for a new basin, 200 for an idempotent replay.
  await ex.sendJson(
    result === "created" ? 201 : 200,
    basinInfoJson(meta, ctx.location, scopeFor(ex, body)),
    ex.dialectHeaders("provision-result", result),
  );
}

export async function getBasinHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const name = checkBasinName(ctx.params[0]!, "bad_path");
  await ex.sendJson(200, basinConfigJson((await getBasin(ctx.store, name)).config));
}

export async function ensureBasinHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const name = checkBasinName(ctx.params[0]!, "bad_path");
  // §9.2: A4 is create-basin when it creates, reconfigure-basin when the basin exists; which
  // one is decided with the change. A token with neither is refused before the body.
  ctx.auth.authorizeEither(ctx.principal, ["create-basin", "reconfigure-basin"], { basin: name });
  const body = await optionalJson(ex);
  const p: ConfigParse = new ConfigParse();
  if (body !== undefined && !isObject(body)) p.fail("the request body must be a JSON object");
  const obj: Record<string, unknown> = body ?? {};
  checkScope(p, obj, ctx.location);
  const reconfig = parseBasinReconfig(p, obj.config);
  p.finish();
  const { meta, result } = await ensureBasin(ctx.store, name, reconfig, (op) =>
    ctx.auth.authorize(ctx.principal, op, { basin: name }),
  );
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
