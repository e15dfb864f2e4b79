/**
 * Framed (svc/proto) read sessions (protocol.md §6.6), resumed by the one resume loop
 * (read-resume.ts).
 */
import type { ReadEvent } from "../types.js";
import { decodeReadBatch } from "../wire/proto.js";
import { type ReadSessionOptions, readQuery, resumingRead, takeBatch, watched } from "./read-resume.js";
import { type OpenExchange, serverMessages } from "./session-frames.js";

/** A framed (svc/proto) read session over `open`. */
export function readSession(open: OpenExchange, opts: ReadSessionOptions = {}): AsyncGenerator<ReadEvent> {
  const start = opts.start ?? {};
  const limits = opts.limits ?? {};
  const silenceMs = opts.heartbeatTimeoutMs ?? 20_000;
  return resumingRead(async function* (p, hooks) {
    const exchange = await open({ method: "GET", query: readQuery(start, limits, p), duplex: false });
    hooks.opened();
    return yield* watched(exchange, silenceMs, opts.signal, async function* (watch): AsyncGenerator<
      ReadEvent,
      "done" | "reconnect"
    > {
      for await (const msg of watch.messages(serverMessages({ body: watch.chunks(exchange.body) }))) {
        if (msg.kind === "terminal") throw msg.error;
        const ev = takeBatch(p, decodeReadBatch(msg.payload));
        if (ev.type === "batch") hooks.progressed();
        yield ev;
        if (msg.reconnect) return "reconnect";
      }
      return "done";
    });
  }, opts);
}
