/**
 * SSE read sessions (protocol.md §6.9) over the same road and the same resume loop as framed
 * read sessions (read-session.ts). Records travel as JSON with `svc-format: base64`, so any
 * bytes survive. A resumed attempt repeats the original query and sends the last batch's
 * `id` as `Last-Event-ID`; the server then starts after that record and lowers `count` and
 * `bytes` by the cumulative amounts in the id, so nothing is repeated or skipped.
 *
 *   event: batch   id: <last seq_num>,<count>,<bytes>   data: {"records":[...],"tail"?:{...}}
 *   event: ping    data: {"timestamp": ms, "tail"?: {...}}
 *   event: error   data: {"code": ..., "message": ...}    (then the body ends)
 *   data: [DONE]                                          (clean end)
 */
import { classify, clientError, errorFromResponse } from "../errors.js";
import type { ReadBatch } from "../types.js";
import { parseJsonText, positionFromJson, readBatchFromJson } from "../wire/json.js";
import { readQuery, resumingRead, takeBatch, watched, type ReadEvent, type ReadSessionOptions } from "./read-session.js";
import type { OpenExchange } from "./session-frames.js";

export interface SseEvent {
  event: string;
  data: string;
  id: string | undefined;
}

/** Splits an event stream into events (the WHATWG grammar: fields per line, a blank line ends an event). */
export async function* sseEvents(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  let event = "message";
  let data: string[] = [];
  let id: string | undefined;
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let nl = buffer.search(/\r\n|\r|\n/); nl >= 0; nl = buffer.search(/\r\n|\r|\n/)) {
      // A lone \r at the end may be the first half of \r\n: wait for more.
      if (buffer[nl] === "\r" && nl === buffer.length - 1) break;
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + (buffer.startsWith("\r\n", nl) ? 2 : 1));
      if (line === "") {
        if (data.length > 0) yield { event, data: data.join("\n"), id };
        event = "message";
        data = [];
        id = undefined;
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + (line[colon + 1] === " " ? 2 : 1));
      if (field === "event") event = value;
      else if (field === "data") data.push(value);
      else if (field === "id") id = value;
    }
  }
}

/** An SSE read session over `open` (the opener adds auth and the route). */
export function sseReadSession(open: OpenExchange, opts: ReadSessionOptions = {}): AsyncGenerator<ReadEvent> {
  const query = readQuery(opts.start ?? {}, opts.limits ?? {}, { nextSeq: undefined, count: 0, bytes: 0, idleSince: undefined });
  const silenceMs = opts.heartbeatTimeoutMs ?? 25_000;
  let lastEventId: string | undefined;
  return resumingRead(async function* (p, hooks) {
    const headers: Record<string, string> = { accept: "text/event-stream", "svc-format": "base64" };
    if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
    const exchange = await open({ method: "GET", query, duplex: false, headers });
    hooks.opened();
    return yield* watched(exchange, silenceMs, opts.signal, async function* (messages): AsyncGenerator<ReadEvent, "done" | "reconnect"> {
      for await (const ev of messages(sseEvents(exchange.body))) {
        if (ev.event === "message" && ev.data === "[DONE]") return "done";
        const json = parseData(ev);
        if (ev.event === "error") {
          const code = (json as { code?: unknown } | null)?.code;
          throw errorFromResponse(classify(typeof code === "string" ? code : "other")?.status ?? 500, json);
        }
        if (ev.event === "ping") {
          const tail = (json as { tail?: unknown } | null)?.tail;
          const batch: ReadBatch = tail === undefined || tail === null ? { records: [] } : { records: [], tail: positionFromJson(tail, "tail") };
          yield takeBatch(p, batch);
        } else if (ev.event === "batch") {
          const out = takeBatch(p, readBatchFromJson(json, "base64"));
          if (ev.id !== undefined) lastEventId = ev.id;
          hooks.progressed();
          yield out;
        }
      }
      throw clientError("network", "the event stream ended before [DONE]");
    });
  }, opts);
}

function parseData(ev: SseEvent): unknown {
  try {
    return parseJsonText(ev.data);
  } catch (e) {
    throw clientError("protocol", `malformed ${ev.event} event from the server: ${(e as Error).message}`, e);
  }
}
