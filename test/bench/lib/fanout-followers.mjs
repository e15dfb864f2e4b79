/**
 * The followers of the fan-out bench (fanout.mjs), in a process of their own: N readers of one
 * stream from seq 0, over SSE (h2c, or HTTP/1.1 with H1) or svc/proto read sessions (h2c),
 * several per connection. Every record's body is the time (µs, the machine's monotonic clock)
 * the writer sent it, so each arrival gives a latency.
 *
 * Config: one JSON object in argv[2]:
 *   { targets: [{url, token}], basin, stream, n, perConn, kind: "sse"|"sse-b64"|"mix"|"proto", h1, slow }
 *   (followers are spread over the targets; `slow`: follower 0 stops reading when told)
 * stdin commands: "pause" (the slow follower stops reading), "resume", "report <expected>".
 * stdout: {"ready": n} once every follower has heard from the server, then one report per ask.
 */
import http from "node:http";
import http2 from "node:http2";

const cfg = JSON.parse(process.argv[2]);
const nowUs = () => Number(process.hrtime.bigint() / 1000n);
const SSE_RECORD = /"seq_num":(\d+),"timestamp":\d+,"body":"([^"]*)"/g;

/** One follower's tally. */
class Follower {
  next = 0;
  delivered = 0;
  disorder = 0;
  heard = false;
  lats = [];
  constructor(b64) {
    this.b64 = b64;
  }
  record(seq, body) {
    this.recordSent(seq, Number(this.b64 ? Buffer.from(body, "base64").toString() : body));
  }
  recordSent(seq, sent) {
    if (seq !== this.next) this.disorder++;
    this.next = seq + 1;
    this.delivered++;
    if (Number.isFinite(sent) && sent > 0) this.lats.push(nowUs() - sent);
  }
}

const followers = [];
const streams = [];
let readyTold = false;
function heard(f) {
  if (f.heard) return;
  f.heard = true;
  if (!readyTold && followers.every((x) => x.heard)) {
    readyTold = true;
    console.log(JSON.stringify({ ready: followers.length }));
  }
}

function sseHandler(f) {
  let rest = "";
  return (chunk) => {
    heard(f);
    const text = rest + chunk;
    const end = text.lastIndexOf("\n\n");
    if (end < 0) {
      rest = text;
      return;
    }
    rest = text.slice(end + 2);
    for (const m of text.slice(0, end).matchAll(SSE_RECORD)) f.record(Number(m[1]), m[2]);
  };
}

/**
 * svc/proto frames parsed by hand, just enough for the tally (the followers' own CPU is the
 * bench's bottleneck long before lite's): 3-byte length, flag byte, then a ReadBatch whose
 * records (field 1) carry seq_num (field 1, varint) and body (field 4: here decimal digits).
 */
function protoHandler(f) {
  let rest = Buffer.alloc(0);
  return (chunk) => {
    heard(f);
    const buf = rest.length ? Buffer.concat([rest, chunk]) : chunk;
    let at = 0;
    while (at + 4 <= buf.length) {
      const len = (buf[at] << 16) | (buf[at + 1] << 8) | buf[at + 2];
      if (at + 3 + len > buf.length) break;
      if ((buf[at + 3] & 0x80) === 0) readBatch(f, buf, at + 4, at + 3 + len);
      at += 3 + len;
    }
    rest = at < buf.length ? buf.subarray(at) : Buffer.alloc(0);
  };
}

function varint(buf, at) {
  let v = 0;
  let mul = 1;
  for (;;) {
    const b = buf[at++];
    v += (b & 0x7f) * mul;
    if (b < 0x80) return [v, at];
    mul *= 128;
  }
}

function readBatch(f, buf, at, end) {
  while (at < end) {
    const tag = buf[at++];
    let len;
    [len, at] = varint(buf, at);
    if (tag === 0x0a) {
      let seq = 0; // proto3 leaves a zero seq_num out
      let sent = 0;
      let p = at;
      const rEnd = at + len;
      while (p < rEnd) {
        const t = buf[p++];
        if ((t & 7) === 0) {
          let v;
          [v, p] = varint(buf, p);
          if (t >> 3 === 1) seq = v;
        } else {
          let l;
          [l, p] = varint(buf, p);
          if (t >> 3 === 4) for (let i = p; i < p + l; i++) sent = sent * 10 + (buf[i] - 48);
          p += l;
        }
      }
      f.recordSent(seq, sent);
    }
    at += len;
  }
}

const path = (t) => `/v1/streams/${encodeURIComponent(cfg.stream)}/records?seq_num=0`;
const sessions = new Map();
function sessionFor(target, i) {
  // A slow follower is a client of its own (its own connection), as a slow reader is.
  const key = cfg.slow && i === 0 ? "slow" : `${target.url}#${Math.floor(i / cfg.perConn)}`;
  let s = sessions.get(key);
  if (!s) {
    s = http2.connect(target.url, { settings: { initialWindowSize: 1 << 20 } });
    s.on("error", () => {});
    sessions.set(key, s);
  }
  return s;
}
const agent = new http.Agent({ keepAlive: true, maxSockets: cfg.n + 10 });

for (let i = 0; i < cfg.n; i++) {
  const target = cfg.targets[i % cfg.targets.length];
  const kind = cfg.kind === "mix" ? (i % 2 ? "sse-b64" : "sse") : cfg.kind;
  const f = new Follower(kind === "sse-b64");
  followers.push(f);
  const headers = {
    authorization: `Bearer ${target.token}`,
    "svc-basin": cfg.basin,
    ...(kind === "proto" ? { "content-type": "svc/proto", accept: "svc/proto" } : { accept: "text/event-stream" }),
    ...(kind === "sse-b64" ? { "svc-format": "base64" } : {}),
  };
  const onData = kind === "proto" ? protoHandler(f) : sseHandler(f);
  if (cfg.h1) {
    const u = new URL(target.url);
    const req = http.get({ host: u.hostname, port: u.port, path: path(target), headers, agent }, (res) => {
      if (kind !== "proto") res.setEncoding("utf8");
      res.on("data", onData);
      streams.push(res);
    });
    req.on("error", () => {});
  } else {
    const req = sessionFor(target, i).request({ ":method": "GET", ":path": path(target), ...headers });
    if (kind !== "proto") req.setEncoding("utf8");
    req.on("data", onData);
    req.on("error", () => {});
    streams.push(req);
  }
}

function report(expected) {
  const lats = [];
  let delivered = 0;
  let disorder = 0;
  let complete = 0;
  for (const f of followers) {
    delivered += f.delivered;
    disorder += f.disorder;
    if (f.next === expected && f.delivered === expected) complete++;
    for (const l of f.lats) lats.push(l);
  }
  lats.sort((a, b) => a - b);
  const pct = (p) => (lats.length ? lats[Math.min(lats.length - 1, Math.floor(p * lats.length))] / 1000 : null);
  const slow = followers[0];
  return {
    followers: followers.length,
    complete,
    delivered,
    expected: expected * followers.length,
    disorder,
    p50_ms: pct(0.5),
    p99_ms: pct(0.99),
    max_ms: pct(1),
    slow: cfg.slow ? { delivered: slow.delivered, next: slow.next, disorder: slow.disorder } : undefined,
  };
}

let buf = "";
process.stdin.on("data", (d) => {
  buf += d;
  for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
    const [cmd, arg] = buf.slice(0, nl).trim().split(" ");
    buf = buf.slice(nl + 1);
    if (cmd === "pause") streams[0]?.pause();
    else if (cmd === "resume") streams[0]?.resume();
    else if (cmd === "report") {
      // the slow follower's latencies are not the others'
      if (cfg.slow) followers[0].lats = [];
      console.log(JSON.stringify(report(Number(arg))));
    } else if (cmd === "exit") process.exit(0);
  }
});
