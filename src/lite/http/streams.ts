/** Basin-level stream endpoints B1–B6 (protocol.md §2.3). */

import { badName } from "../../rules/names.js";
import type { Resources } from "../auth/decision.js";
import type { PartialStreamConfig, StreamMeta } from "../storage/types.js";
import {
  createStream,
  deleteStream,
  ensureStream,
  getStream,
  listStreams,
  reconfigureStreamOp,
} from "../store/streams.js";
import {
  ConfigParse,
  isObject,
  parseStreamReconfig,
  streamConfigJson,
  streamInfoJson,
  toPartial,
} from "./config-json.js";
import { bodyStep, type RequestContext } from "./context.js";
import type { Exchange } from "./exchange.js";
import { optionalJson, requiredJson } from "./json-body.js";
import { bodyNameProblem, checkStreamName, listParams, requestBasin, requestToken } from "./params.js";

interface NewStream {
  basin: string;
  /** With an auto-prefix token's prefix. */
  name: string;
  requested: PartialStreamConfig;
  token: string | undefined;
}

function target(ex: Exchange, ctx: RequestContext): { basin: string; stream: string } {
  const basin = requestBasin(ex);
  return { basin, stream: checkStreamName(ctx.params[0]!, "bad_path") };
}

/** §9.4: names leave with an auto-prefix token's prefix removed. */
function infoOut(ctx: RequestContext, meta: StreamMeta): Record<string, unknown> {
  return { ...streamInfoJson(meta), name: meta.name.slice(ctx.streamPrefix.length) };
}

export async function listStreamsHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const basin = requestBasin(ex);
  const q = listParams(ex.query, "stream");
  // An auto-prefix token lists in its logical namespace; every token only inside its set.
  const prefix = ctx.streamPrefix + q.prefix;
  const startAfter = q.startAfter === "" ? "" : ctx.streamPrefix + q.startAfter;
  const view = ctx.access.listing("streams", prefix);
  let page: { streams: StreamMeta[]; hasMore: boolean } = { streams: [], hasMore: false };
  if (view && "prefix" in view) page = await listStreams(ctx.store, basin, view.prefix, startAfter, q.limit);
  else if (view && view.exact > startAfter)
    page = await listStreams(ctx.store, basin, view.exact, startAfter, 1).then((p) => ({
      streams: p.streams.filter((s) => s.name === view.exact),
      hasMore: false,
    }));
  await ex.sendJson(200, { streams: page.streams.map((m) => infoOut(ctx, m)), has_more: page.hasMore });
}

/** B2: the body names the stream, so the decision waits for it (BodyNamed). */
export const createStreamHandler = bodyStep<NewStream>({
  async read(ex, head) {
    const basin = requestBasin(ex);
    const token = requestToken(ex);
    const body = await requiredJson(ex);
    const p: ConfigParse = new ConfigParse();
    if (!isObject(body)) p.fail("the request body must be a JSON object");
    if (typeof body.stream !== "string") p.fail("missing field `stream` (a string)");
    bodyNameProblem(badName("stream", body.stream), body.stream, (m) => p.fail(m));
    const requested = toPartial(parseStreamReconfig(p, body.config));
    p.finish();
    return { basin, name: head.streamPrefix + (body.stream as string), requested, token };
  },
  names: (s) => ({ basin: s.basin, stream: s.name }),
  async act(ex, ctx, s) {
    const { meta, result } = await createStream(ctx.store, s.basin, s.name, s.requested, s.token);
    // §2.2 B2: an idempotent stream replay is also 201.
    await ex.sendJson(201, infoOut(ctx, meta), ex.dialectHeaders("provision-result", result));
  },
});

export async function getStreamHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const { basin, stream } = target(ex, ctx);
  await ex.sendJson(200, streamConfigJson((await getStream(ctx.store, basin, stream)).config));
}

/** B4's basin and stream, named before its access is decided (a bad name is 400 whatever the token). */
export function ensureStreamNames(ex: Exchange, params: string[]): Resources {
  return { basin: requestBasin(ex), stream: checkStreamName(params[0]!, "bad_path") };
}

export async function ensureStreamHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const { basin, stream } = target(ex, ctx);
  const body = await optionalJson(ex);
  const p: ConfigParse = new ConfigParse();
  if (body !== undefined && !isObject(body)) p.fail("the request body must be a JSON object");
  const reconfig = parseStreamReconfig(p, body);
  p.finish();
  // §9.2: B4 is create-stream when it creates, reconfigure-stream when the stream exists: the
  // store tells which under the stream's lock, and asks the decision.
  const { meta, result } = await ensureStream(ctx.store, basin, stream, reconfig, ctx.access);
  await ex.sendJson(
    result === "created" ? 201 : 200,
    infoOut(ctx, meta),
    ex.dialectHeaders("provision-result", result),
  );
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
