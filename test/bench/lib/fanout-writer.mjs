/**
 * The writer of the fan-out bench (fanout.mjs), in a process of its own: one-record unary
 * appends (JSON over h2c) at a fixed rate for a fixed time, one at a time; each body is the
 * time (µs, the machine's monotonic clock) it was sent. An append whose turn came while the
 * last one waited for its ack goes as soon as that ack arrives, so a server that slows the
 * writer shows as a lower rate.
 *
 * Config: JSON in argv[2]: { url, token, basin, stream, rate, secs }.
 * stdout: one JSON object: sent, acked, rate achieved, ack latency p50/p99 (ms).
 */
import http2 from "node:http2";

const cfg = JSON.parse(process.argv[2]);
const nowUs = () => Number(process.hrtime.bigint() / 1000n);
const session = http2.connect(cfg.url);
session.on("error", () => {});

function append(body) {
  return new Promise((resolve, reject) => {
    const req = session.request({
      ":method": "POST",
      ":path": `/v1/streams/${encodeURIComponent(cfg.stream)}/records`,
      authorization: `Bearer ${cfg.token}`,
      "svc-basin": cfg.basin,
      "content-type": "application/json",
    });
    let status = 0;
    req.on("response", (h) => (status = h[":status"]));
    req.on("data", () => {});
    req.on("end", () => (status === 200 ? resolve() : reject(new Error(`append answered ${status}`))));
    req.on("error", reject);
    req.end(JSON.stringify({ records: [{ body }] }));
  });
}

const lats = [];
const total = Math.round(cfg.rate * cfg.secs);
const t0 = performance.now();
let acked = 0;
for (let i = 0; i < total; i++) {
  const due = t0 + (i * 1000) / cfg.rate;
  const wait = due - performance.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  const sent = nowUs();
  await append(String(sent));
  lats.push((nowUs() - sent) / 1000);
  acked++;
}
const secs = (performance.now() - t0) / 1000;
lats.sort((a, b) => a - b);
const pct = (p) => lats[Math.min(lats.length - 1, Math.floor(p * lats.length))];
console.log(JSON.stringify({ sent: total, acked, rate: acked / secs, ack_p50_ms: pct(0.5), ack_p99_ms: pct(0.99) }));
session.close();
