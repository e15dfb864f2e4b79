/**
 * The server side of a framed read session (protocol.md §6.6): `ReadBatch` frames, compressed
 * per frame when negotiated and at least 1 KiB, heartbeats as batches with no records and a
 * tail never above what the session delivered (read-pump.ts), a clean end when the read is complete, and a terminal frame for errors after
 * the 200. While the server drains, frames carry the reconnect-advised flag; a client still
 * attached after the grace period gets terminal 503 `server_draining`. Live batches are framed
 * once per compression for every session that follows the stream (`live.shape`).
 */
import type { ReadBatch, StreamPosition } from "../../types.js";
import {
  type Compression,
  encodeFrameInPlace,
  encodeTerminalFrame,
  frameHead,
  withReconnect,
} from "../../wire/framing.js";
import { frameEncoded } from "../../wire/message-frame.js";
import { encodeReadBatch } from "../../wire/proto.js";
import type { LiveBatch } from "../store/live-fanout.js";
import { terminalFor } from "../wire-error.js";
import type { SessionIO } from "./io.js";
import { type PumpOptions, pumpRead, type ReadSource } from "./read-pump.js";

export interface ReadSessionOptions extends PumpOptions {
  compression: Compression;
}

export async function runReadSession(io: SessionIO, feed: ReadSource, opts: ReadSessionOptions): Promise<void> {
  const send = async (batch: ReadBatch): Promise<void> => {
    const reconnect = opts.drain.draining;
    const encoded = batch.encoded;
    if (encoded && batch.tail === undefined && opts.compression === "none") {
      // Stored records, already encoded: the frame is its head and then the stored bytes
      // themselves, written as they are (no 1 MiB frame to allocate, fill and collect).
      let length = 0;
      for (const piece of encoded) length += piece.length;
      await io.writev([frameHead(length, { reconnect }), ...encoded]);
      return;
    }
    await io.write(await frameEncoded((reserve) => encodeReadBatch(batch, reserve), opts.compression, { reconnect }));
  };
  const key = `frame:${opts.compression}`;
  const make = (b: LiveBatch): Uint8Array | Promise<Uint8Array> =>
    opts.compression === "none"
      ? encodeFrameInPlace((reserve) => encodeReadBatch(b.readBatch, reserve))
      : frameEncoded((reserve) => encodeReadBatch(b.readBatch, reserve), opts.compression);
  try {
    const result = await pumpRead(
      feed,
      io,
      {
        batch: send,
        heartbeat: (tail: StreamPosition | undefined) => send(tail ? { records: [], tail } : { records: [] }),
        live: {
          shape: { key, make },
          deliver(b) {
            const frame = b.shaped(key)!;
            return io.writeNow([opts.drain.draining ? withReconnect(frame) : frame]);
          },
        },
      },
      opts,
    );
    if (result === "draining") {
      await io.write(
        encodeTerminalFrame(503, {
          code: "server_draining",
          message: "the server is shutting down; reconnect to continue reading",
        }),
      );
    }
  } catch (e) {
    opts.onError?.(e);
    await io.write(terminalFor(e));
  }
  io.end();
}
