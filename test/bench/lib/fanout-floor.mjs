/**
 * Node's own fan-out floor, for the fan-out bench (fanout.mjs): the cheapest fan-out a Node server
 * can do, a bare http2 (or HTTP/1.1, H1=1) server that writes one shared buffer to every follower,
 * each record once, in lite's shape: an SSE batch event, or (KIND=proto) a svc/proto session frame.
 * Its CPU per delivery is the baseline lite's is compared with, measured in the same run on the
 * same machine, with the same followers.
 *
 * stdout: {"port"} at start; after stdin "go <rate> <secs>": {deliveries, cpu_s, us_per_delivery}.
 */
import http from "node:http";
import http2 from "node:http2";
import { encodeFrame } from "../../../dist/wire/framing.js";
import { encodeReadBatch } from "../../../dist/wire/proto.js";

const H1 = process.env.H1 === "1";
const PROTO = process.env.KIND === "proto";
const followers = new Set();
const onRequest = (req, res) => {
  res.writeHead(200, { "content-type": PROTO ? "svc/proto" : "text/event-stream" });
  res.write(
    PROTO
      ? encodeFrame(encodeReadBatch({ records: [], tail: { seqNum: 0, timestamp: 0 } }))
      : "event: ping\ndata: {}\n\n",
  );
  followers.add(res);
  req.on("close", () => followers.delete(res));
};
const server = H1
  ? http.createServer(onRequest)
  : http2.createServer({ settings: { maxConcurrentStreams: 100_000 } }, onRequest);
server.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ port: server.address().port })));

const enc = new TextEncoder();
function event(seq, body) {
  if (PROTO) {
    const record = { seqNum: seq, timestamp: Date.now(), headers: [], body: enc.encode(body) };
    return encodeFrame(encodeReadBatch({ records: [record], tail: { seqNum: seq + 1, timestamp: record.timestamp } }));
  }
  return Buffer.from(
    `event: batch\nid: ${seq},${seq + 1},${body.length + 8}\ndata: {"records":[{"seq_num":${seq},"timestamp":${Date.now()},"body":"${body}"}],"tail":{"seq_num":${seq + 1},"timestamp":0}}\n\n`,
  );
}

process.stdin.on("data", (d) => {
  const [cmd, rate, secs] = String(d).trim().split(" ");
  if (cmd !== "go") return;
  const total = Math.round(Number(rate) * Number(secs));
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let deliveries = 0;
  let seq = 0;
  const tick = () => {
    const buf = event(seq++, String(Number(process.hrtime.bigint() / 1000n)));
    for (const f of followers) f.write(buf);
    deliveries += followers.size;
    if (seq < total) setTimeout(tick, t0 + (seq * 1000) / Number(rate) - performance.now());
    else {
      const c = process.cpuUsage(c0);
      const cpu = (c.user + c.system) / 1e6;
      console.log(JSON.stringify({ deliveries, cpu_s: cpu, us_per_delivery: (cpu * 1e6) / deliveries }));
    }
  };
  tick();
});
