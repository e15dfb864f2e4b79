/**
 * Data-plane endpoints B7 append, B8 read, B9 check-tail (protocol.md §2.3, §7, §8): the unary
 * forms here, sessions and SSE in sessions.ts. Validation always runs before the stream is
 * looked up, so a rejected request never auto-creates a stream (§10.3).
 */
import { serverError, serverFail } from "../../errors.js";
import type { AppendInput, ReadBatch, ReadStart } from "../../types.js";
import { checkAppendInput } from "../../rules/records.js";
import { appendAckToJson, appendInputFromJson, positionToJson, readBatchToJson } from "../../wire/json.js";
import { decodeAppendInput, encodeAppendAck, encodeReadBatch } from "../../wire/proto.js";
import { validateReadParams, type ReadParams } from "../store/read-start.js";
import type { RequestContext } from "./context.js";
import type { Exchange } from "./exchange.js";
import { parseJsonBuffer } from "./json-body.js";
import { appendSession, readSession } from "./sessions.js";
import { StreamAccess } from "./stream-access.js";
import { acceptType, contentType, isJsonType, isProtobufType, isSessionType } from "./media.js";
import { boolQuery, requestFormat, u64Query } from "./params.js";

const PROTOBUF = "application/protobuf";
const U32_MAX = 0xffff_ffff;

async function decodeInput(ex: Exchange): Promise<AppendInput> {
  const ct = contentType(ex);
  if (isProtobufType(ct)) return decodeAppendInput(await ex.body());
  const format = requestFormat(ex);
  if (!isJsonType(ct)) throw serverError("bad_json", "Expected request with `Content-Type: application/json`");
  return appendInputFromJson(parseJsonBuffer(await ex.body()), format);
}

export async function appendHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  if (isSessionType(contentType(ex))) return appendSession(ex, ctx);
  const input = await decodeInput(ex);
  checkAppendInput(input, serverFail("invalid"));
  const access = await StreamAccess.open(ex, ctx, "append", { first: input });
  const ack = await (await access.submit(input)).ack;
  if (isProtobufType(acceptType(ex))) await ex.send(200, encodeAppendAck(ack), PROTOBUF);
  else await ex.sendJson(200, appendAckToJson(ack));
}

/** §2.3 B8 query parameters; more than one start → 422 invalid. */
export function readParams(q: URLSearchParams): ReadParams {
  const starts: ReadStart[] = [];
  const seqNum = u64Query(q, "seq_num");
  const timestamp = u64Query(q, "timestamp");
  const tailOffset = u64Query(q, "tail_offset");
  if (seqNum !== undefined) starts.push({ seqNum });
  if (timestamp !== undefined) starts.push({ timestamp });
  if (tailOffset !== undefined) starts.push({ tailOffset });
  if (starts.length > 1) throw serverError("invalid", "at most one of seq_num, timestamp and tail_offset may be given");
  const params: ReadParams = {};
  if (starts[0]) params.start = starts[0];
  const clamp = boolQuery(q, "clamp");
  if (clamp !== undefined) params.clamp = clamp;
  const count = u64Query(q, "count");
  if (count !== undefined) params.count = count;
  const bytes = u64Query(q, "bytes");
  if (bytes !== undefined) params.bytes = bytes;
  const until = u64Query(q, "until");
  if (until !== undefined) params.until = until;
  const wait = u64Query(q, "wait", U32_MAX);
  if (wait !== undefined) params.wait = wait;
  return params;
}

export async function readHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const accept = acceptType(ex);
  const session = isSessionType(contentType(ex)) ? "proto" : accept === "text/event-stream" ? "sse" : undefined;
  const params = readParams(ex.query);
  validateReadParams(params);
  if (session) return readSession(ex, ctx, params, session);
  const protobuf = isProtobufType(accept);
  const format = protobuf ? "raw" : requestFormat(ex);
  const access = await StreamAccess.open(ex, ctx, "read");
  const cursor = await access.cursor(params, true);
  let batch: ReadBatch = { records: [] };
  try {
    let step = await cursor.next();
    if (step.kind === "following") {
      // §7.5 unary long-poll: wait for the first live batch, or answer empty at the deadline.
      // §9.5: a token revoked or expired while the request waits gets 401, not what came after.
      const watch = access.watchToken();
      try {
        step = await cursor.next(
          Date.now() + (cursor.waitMs ?? 0),
          AbortSignal.any([ex.signal, ctx.shutdown, watch.signal]),
        );
      } finally {
        watch.stop();
      }
      await access.recheck();
    }
    if (step.kind === "batch") batch = step.batch;
  } finally {
    cursor.close();
  }
  if (protobuf) await ex.send(200, encodeReadBatch(batch), PROTOBUF);
  else await ex.sendJson(200, readBatchToJson(batch, format));
}

export async function checkTailHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const access = await StreamAccess.open(ex, ctx, "read", { records: false });
  await ex.sendJson(200, { tail: positionToJson(await access.stream.tailNow()) });
}
