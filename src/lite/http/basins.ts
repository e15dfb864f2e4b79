/** Account-level basin endpoints A1–A6 (protocol.md §2.2). */
import { serverError } from "../../errors.js";
import { createBasin, deleteBasin, ensureBasin, getBasin, listBasins, reconfigureBasinOp } from "../store/basins.js";
import type { RequestContext } from "./context.js";
import { basinConfigJson, basinInfoJson, ConfigParse, isObject, parseBasinConfig, parseBasinReconfig } from "./config-json.js";
import type { Exchange } from "./exchange.js";
import { optionalJson, requiredJson } from "./json-body.js";
import { basinNameProblem, checkBasinName, listParams, requestToken } from "./params.js";

function checkScope(p: ConfigParse, v: unknown): void {
  if (v !== undefined && v !== null && v !== "cloud:us-east-1") p.fail("scope must be \"cloud:us-east-1\" or null");
}

export async function listBasinsHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const { prefix, startAfter, limit } = listParams(ex.query, "basin");
  const page = await listBasins(ctx.store, prefix, startAfter, limit);
  await ex.sendJson(200, { basins: page.basins.map(basinInfoJson), has_more: page.hasMore });
}

export async function createBasinHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const token = requestToken(ex);
  const body = await requiredJson(ex);
  const p: ConfigParse = new ConfigParse();
  if (!isObject(body)) p.fail("the request body must be a JSON object");
  if (typeof body.basin !== "string") p.fail("missing field `basin` (a string)");
  const problem = basinNameProblem(body.basin);
  if (problem) p.fail(problem);
  checkScope(p, body.scope);
  const config = parseBasinConfig(p, body.config);
  p.finish();
  const { meta, result } = await createBasin(ctx.store, body.basin, config, token);
  // §2.2 A2 recommendation: 201 for a new basin, 200 for an idempotent replay.
  await ex.sendJson(result === "created" ? 201 : 200, basinInfoJson(meta), { "svc-provision-result": result });
}

export async function getBasinHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const name = checkBasinName(ctx.params[0]!, "bad_path");
  await ex.sendJson(200, basinConfigJson((await getBasin(ctx.store, name)).config));
}

export async function ensureBasinHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const name = checkBasinName(ctx.params[0]!, "bad_path");
  const body = await optionalJson(ex);
  const p: ConfigParse = new ConfigParse();
  if (body !== undefined && !isObject(body)) p.fail("the request body must be a JSON object");
  const obj: Record<string, unknown> = body ?? {};
  checkScope(p, obj.scope);
  const reconfig = parseBasinReconfig(p, obj.config);
  p.finish();
  const { meta, result } = await ensureBasin(ctx.store, name, reconfig);
  await ex.sendJson(result === "created" ? 201 : 200, basinInfoJson(meta), { "svc-provision-result": result });
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

export async function notImplemented(ex: Exchange): Promise<void> {
  await ex.body().catch(() => undefined);
  throw serverError("not_implemented", `${ex.method} ${ex.path} is not implemented by svc lite`);
}
