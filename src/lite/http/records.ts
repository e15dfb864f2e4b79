/**
 * Data-plane endpoints B7 append, B8 read, B9 check-tail (protocol.md §2.3, §7, §8): the unary
 * forms here, sessions and SSE in sessions.ts. Validation always runs before the stream is
 * looked up, so a rejected request never auto-creates a stream (§10.3).
 */
import { serverError, serverFail } from "../../errors.js";
import { checkBatch } from "../../rules/records.js";
import type { AppendInput, ReadBatch } from "../../types.js";
import { appendAckToJson, appendInputFromJson, positionToJson, readBatchToJson } from "../../wire/json.js";
import { TAIL_WENT_BACK_HEADER } from "../../wire/lite-headers.js";
import { decodeAppendInput, encodeAppendAck, encodeReadBatch } from "../../wire/proto.js";
import type { ReadFeed } from "../store/read-feed.js";
import { planRead } from "../store/read-plan.js";
import type { RequestContext } from "./context.js";
import type { Exchange } from "./exchange.js";
import { parseJsonBuffer } from "./json-body.js";
import { acceptType, contentType, isJsonType, isProtobufType, isSessionType } from "./media.js";
import { readQuery, requestFormat } from "./params.js";
import { appendSession, readSession } from "./sessions.js";
import { StreamAccess } from "./stream-access.js";

const PROTOBUF = "application/protobuf";

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
  checkBatch(input, serverFail("invalid"));
  const access = await StreamAccess.open(ex, ctx, "append", { first: input });
  const ack = await (await access.submit(input)).ack;
  if (isProtobufType(acceptType(ex))) await ex.send(200, encodeAppendAck(ack), PROTOBUF);
  else await ex.sendJson(200, appendAckToJson(ack));
}

export async function readHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const accept = acceptType(ex);
  const session = isSessionType(contentType(ex)) ? "proto" : accept === "text/event-stream" ? "sse" : undefined;
  const params = readQuery(ex.query);
  const plan = planRead(params, session === undefined); // a bad read fails before its stream is looked up (§10.3)
  if (session) return readSession(ex, ctx, plan, session);
  const protobuf = isProtobufType(accept);
  const format = protobuf ? "raw" : requestFormat(ex);
  const access = await StreamAccess.open(ex, ctx, "read");
  const batch = await unaryRead(await access.feed(plan), ex, ctx);
  // §9.5: a token revoked or expired while the request waited gets 401, not what came after.
  await access.recheck();
  if (protobuf) await ex.send(200, encodeReadBatch(batch), PROTOBUF);
  else await ex.sendJson(200, readBatchToJson(batch, format));
}

/**
 * A unary read: one step of its feed; at the tail (§7.5 long-poll) the first live batch, or
 * nothing once `wait` runs out, the client leaves or the server drains.
 */
async function unaryRead(feed: ReadFeed, ex: Exchange, ctx: RequestContext): Promise<ReadBatch> {
  const offDrain = ctx.drain.onDrain(() => feed.close());
  const offClose = ex.onClose(() => feed.close());
  try {
    for (;;) {
      const ev = await feed.next();
      if (!ev) return { records: [] };
      if (ev.type === "batch") return ev;
      let caught: ReadBatch | undefined;
      const end = await feed.follow({
        deliver: (b) => {
          caught = b.readBatch;
          return false;
        },
      });
      if (caught) return caught;
      if (end !== "storage") return { records: [] };
    }
  } finally {
    offDrain();
    offClose();
    feed.close();
  }
}

/**
 * The tail; on a stream whose stored tail was found to have gone back (a failover that lost
 * acknowledged records: store/went-back.ts), lite says so in a header of its own, which clients
 * that do not know it ignore: `svc-lite-tail-went-back: from=<seq>, to=<seq>`.
 */
export async function checkTailHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const access = await StreamAccess.open(ex, ctx, "read", { records: false });
  const tail = positionToJson(await access.stream.tailNow());
  const lost = access.stream.lost;
  const headers: Record<string, string> = lost ? { [TAIL_WENT_BACK_HEADER]: `from=${lost.from}, to=${lost.to}` } : {};
  await ex.sendJson(200, { tail }, headers);
}
