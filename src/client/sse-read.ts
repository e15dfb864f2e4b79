/**
 * SSE read sessions (protocol.md §6.9) over the same road and the same resume loop as framed
 * read sessions (read-resume.ts). Records travel as JSON with `svc-format: base64`, so any
 * bytes survive. A resumed attempt repeats the original query and sends the last batch's
 * `id` as `Last-Event-ID`; the server then starts after that record and lowers `count` and
 * `bytes` by the cumulative amounts in the id, so nothing is repeated or skipped. Before any
 * batch arrived there is no id: a resumed attempt starts where the first ping's tail put the
 * read (a start by tail offset, timestamp or clamp is not judged again, which could skip
 * records appended meanwhile), else repeats the query.
 *
 *   event: batch   id: <last seq_num>,<count>,<bytes>   data: {"records":[...],"tail"?:{...}}
 *   event: ping    data: {"timestamp": ms, "tail"?: {...}}
 *   event: error   data: {"code": ..., "message": ...}    (then the body ends)
 *   data: [DONE]                                          (clean end)
 */
import { classify, clientError, errorFromResponse } from "../errors.js";
import type { ReadBatch, ReadEvent } from "../types.js";
import { parseJsonText, positionFromJson, readBatchFromJson } from "../wire/json.js";
import { type ReadSessionOptions, readQuery, resumingRead, takeBatch, watched } from "./read-resume.js";
import type { OpenExchange } from "./session-frames.js";

interface SseEvent {
  event: string;
  data: string;
  id: string | undefined;
}

/**
 * The longest line (and the most data of one event) accepted: a batch event of the largest
 * read batch is under 3 MiB of JSON (2 MiB of records as base64), so more is not a server
 * speaking this protocol, and buffering it would only grow memory.
 */
const MAX_SSE_LINE = 8 * 1024 * 1024;

/**
 * Splits an event stream into events (the WHATWG grammar: fields per line, a blank line ends
 * an event). Each chunk is scanned once, whatever the length of a line; a line or an event's
 * data longer than `maxLine` characters fails the read with `protocol`.
 */
export async function* sseEvents(body: AsyncIterable<Uint8Array>, maxLine = MAX_SSE_LINE): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  const lines = new LineSplitter(maxLine);
  let event = "message";
  let data: string[] = [];
  let dataLength = 0;
  let id: string | undefined;
  for await (const chunk of body) {
    for (const line of lines.push(decoder.decode(chunk, { stream: true }))) {
      if (line === "") {
        if (data.length > 0) yield { event, data: data.join("\n"), id };
        event = "message";
        data = [];
        dataLength = 0;
        id = undefined;
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + (line[colon + 1] === " " ? 2 : 1));
      if (field === "event") event = value;
      else if (field === "data") {
        dataLength += value.length + 1;
        if (dataLength > maxLine) throw tooLong(maxLine);
        data.push(value);
      } else if (field === "id") id = value;
    }
  }
}

function tooLong(maxLine: number): Error {
  return clientError(
    "protocol",
    `the server sent an event-stream line or event longer than ${maxLine / 1024 / 1024} MiB`,
  );
}

/** Text in, complete lines out (ended by CRLF, LF or CR); what is left of a line is kept, bounded. */
export class LineSplitter {
  private partial: string[] = [];
  private partialLength = 0;
  /** The last chunk ended with CR: a LF opening the next one belongs to it. */
  private afterCR = false;

  constructor(private readonly maxLine: number) {}

  push(text: string): string[] {
    const out: string[] = [];
    let pos = this.afterCR && text.startsWith("\n") ? 1 : 0;
    if (text.length > 0) this.afterCR = false;
    let lf = text.indexOf("\n", pos);
    let cr = text.indexOf("\r", pos);
    for (;;) {
      if (lf >= 0 && lf < pos) lf = text.indexOf("\n", pos);
      if (cr >= 0 && cr < pos) cr = text.indexOf("\r", pos);
      const end = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
      if (end < 0) break;
      out.push(this.take(text.slice(pos, end)));
      pos = end + 1;
      if (end === cr) {
        if (pos === text.length) this.afterCR = true;
        else if (text.charCodeAt(pos) === 10) pos++;
      }
    }
    if (pos < text.length) {
      this.partialLength += text.length - pos;
      if (this.partialLength > this.maxLine) throw tooLong(this.maxLine);
      this.partial.push(text.slice(pos));
    }
    return out;
  }

  private take(tail: string): string {
    if (this.partial.length === 0) {
      if (tail.length > this.maxLine) throw tooLong(this.maxLine);
      return tail;
    }
    const line = this.partial.join("") + tail;
    this.partial = [];
    this.partialLength = 0;
    if (line.length > this.maxLine) throw tooLong(this.maxLine);
    return line;
  }
}

/** An SSE read session over `open` (the opener adds auth and the route). */
export function sseReadSession(open: OpenExchange, opts: ReadSessionOptions = {}): AsyncGenerator<ReadEvent> {
  const start = opts.start ?? {};
  const limits = opts.limits ?? {};
  const query = readQuery(start, limits, { nextSeq: undefined, count: 0, bytes: 0, idleSince: undefined });
  const silenceMs = opts.heartbeatTimeoutMs ?? 25_000;
  let lastEventId: string | undefined;
  return resumingRead(async function* (p, hooks) {
    const headers: Record<string, string> = { accept: "text/event-stream", "svc-format": "base64" };
    if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
    // No batch yet: nothing was delivered, so the position the first ping gave (if any) is the start.
    const q = lastEventId === undefined ? readQuery(start, limits, p) : query;
    const exchange = await open({ method: "GET", query: q, duplex: false, headers });
    hooks.opened();
    return yield* watched(exchange, silenceMs, opts.signal, async function* (watch): AsyncGenerator<
      ReadEvent,
      "done" | "reconnect"
    > {
      for await (const ev of watch.messages(sseEvents(watch.chunks(exchange.body)))) {
        if (ev.event === "message" && ev.data === "[DONE]") return "done";
        const json = parseData(ev);
        if (ev.event === "error") {
          const code = (json as { code?: unknown } | null)?.code;
          throw errorFromResponse(classify(typeof code === "string" ? code : "other")?.status ?? 500, json);
        }
        if (ev.event === "ping") {
          const tail = (json as { tail?: unknown } | null)?.tail;
          const batch: ReadBatch =
            tail === undefined || tail === null
              ? { records: [] }
              : { records: [], tail: positionFromJson(tail, "tail") };
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
