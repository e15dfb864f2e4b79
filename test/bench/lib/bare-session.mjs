#!/usr/bin/env node
import { openSync, readSync } from "node:fs";
/**
 * The floor under `svc append -i FILE` and `svc read` (cli-throughput.mjs): a fresh node process
 * doing only the wire work, against the same svc lite, timed the same way (spawn to exit).
 *
 *   node bare-session.mjs append URL TOKEN BASIN STREAM FRAMES_FILE INPUTS
 *     streams a file of ready-made append-session frames on one session and waits for every ack
 *   node bare-session.mjs read URL TOKEN BASIN STREAM
 *     reads the stream from 0 to its tail on one read session, counting bytes, decoding nothing
 *
 * No svc code is loaded: node:http2 and node:fs only. Exits 1 on any error or a short result.
 */
import http2 from "node:http2";

const MIB = 1024 * 1024;
const [mode, url, token, basin, stream, file, inputs] = process.argv.slice(2);
const conn = http2.connect(url, { settings: { initialWindowSize: 2 * MIB } });
conn.on("connect", () => conn.setLocalWindowSize(16 * MIB));
const headers = { "content-type": "svc/proto", "svc-basin": basin, authorization: `Bearer ${token}` };

/** Calls onFrame(length) per whole session frame, copying nothing; a terminal frame is an error. */
function frames(req, onFrame) {
  let head = Buffer.alloc(0); // the next frame's first bytes, until its 4-byte head is known
  let left = 0; // bytes of the current frame still to come
  let length = 0;
  req.on("data", (d) => {
    let at = 0;
    while (at < d.length) {
      if (left > 0) {
        const take = Math.min(left, d.length - at);
        left -= take;
        at += take;
        if (left === 0) onFrame(length);
        continue;
      }
      const need = 4 - head.length;
      head = Buffer.concat([head, d.subarray(at, at + need)]);
      at += Math.min(need, d.length - at);
      if (head.length < 4) break;
      length = head.readUIntBE(0, 3);
      if (head[3] & 0x80) return void req.destroy(new Error("terminal frame from the server"));
      left = length - 1;
      head = Buffer.alloc(0);
      if (left === 0) onFrame(length);
    }
  });
}

async function append() {
  const req = conn.request({ ":method": "POST", ":path": `/v1/streams/${stream}/records`, ...headers });
  let acks = 0;
  const acked = new Promise((resolve, reject) => {
    frames(req, () => {
      if (++acks === Number(inputs)) resolve();
    });
    req.on("error", reject);
    req.on("end", () => reject(new Error(`session ended after ${acks} of ${inputs} acks`)));
  });
  const fd = openSync(file, "r");
  for (;;) {
    const chunk = Buffer.allocUnsafe(MIB);
    const n = readSync(fd, chunk);
    if (n === 0) break;
    if (!req.write(chunk.subarray(0, n))) await new Promise((r) => req.once("drain", r));
  }
  await acked;
  req.end();
}

async function read() {
  const req = conn.request({ ":path": `/v1/streams/${stream}/records?seq_num=0&wait=0`, ...headers });
  let bytes = 0;
  await new Promise((resolve, reject) => {
    req.on("response", (h) => {
      if (h[":status"] !== 200) reject(new Error(`status ${h[":status"]}`));
    });
    frames(req, (length) => {
      bytes += length;
    });
    req.on("end", resolve);
    req.on("error", reject);
  });
  if (bytes === 0) throw new Error("read nothing");
}

(mode === "append" ? append() : read()).then(
  () => conn.close(),
  (e) => {
    console.error(e.message);
    process.exit(1);
  },
);
