/** Basin-level stream endpoints B1–B6 (protocol.md §2.3). */
import { createStream, deleteStream, ensureStream, getStream, listStreams, reconfigureStreamOp } from "../store/streams.js";
import type { RequestContext } from "./context.js";
import { ConfigParse, isObject, parseStreamReconfig, streamConfigJson, streamInfoJson, toPartial } from "./config-json.js";
import type { Exchange } from "./exchange.js";
import { optionalJson, requiredJson } from "./json-body.js";
import { checkStreamName, listParams, requestBasin, requestToken, streamNameProblem } from "./params.js";

function target(ex: Exchange, ctx: RequestContext): { basin: string; stream: string } {
  const basin = requestBasin(ex);
  return { basin, stream: checkStreamName(ctx.params[0]!, "bad_path") };
}

export async function listStreamsHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const basin = requestBasin(ex);
  const { prefix, startAfter, limit } = listParams(ex.query, "stream");
  const page = await listStreams(ctx.store, basin, prefix, startAfter, limit);
  await ex.sendJson(200, { streams: page.streams.map(streamInfoJson), has_more: page.hasMore });
}

export async function createStreamHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const basin = requestBasin(ex);
  const token = requestToken(ex);
  const body = await requiredJson(ex);
  const p: ConfigParse = new ConfigParse();
  if (!isObject(body)) p.fail("the request body must be a JSON object");
  if (typeof body.stream !== "string") p.fail("missing field `stream` (a string)");
  const problem = streamNameProblem(body.stream);
  if (problem) p.fail(problem);
  const requested = toPartial(parseStreamReconfig(p, body.config));
  p.finish();
  const { meta, result } = await createStream(ctx.store, basin, body.stream, requested, token);
  // §2.2 B2: an idempotent stream replay is also 201.
  await ex.sendJson(201, streamInfoJson(meta), { "svc-provision-result": result });
}

export async function getStreamHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const { basin, stream } = target(ex, ctx);
  await ex.sendJson(200, streamConfigJson((await getStream(ctx.store, basin, stream)).config));
}

export async function ensureStreamHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const { basin, stream } = target(ex, ctx);
  const body = await optionalJson(ex);
  const p: ConfigParse = new ConfigParse();
  if (body !== undefined && !isObject(body)) p.fail("the request body must be a JSON object");
  const reconfig = parseStreamReconfig(p, body);
  p.finish();
  const { meta, result } = await ensureStream(ctx.store, basin, stream, reconfig);
  await ex.sendJson(result === "created" ? 201 : 200, streamInfoJson(meta), { "svc-provision-result": result });
}

export async function reconfigureStreamHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const { basin, stream } = target(ex, ctx);
  const body = await requiredJson(ex);
  const p: ConfigParse = new ConfigParse();
  if (!isObject(body)) p.fail("the request body must be a JSON object");
  const reconfig = parseStreamReconfig(p, body);
  p.finish();
  const meta = await reconfigureStreamOp(ctx.store, basin, stream, reconfig);
  await ex.sendJson(200, streamConfigJson(meta.config));
}

export async function deleteStreamHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const { basin, stream } = target(ex, ctx);
  await deleteStream(ctx.store, basin, stream);
  ex.sendEmpty(202);
}
