/**
 * The same-run baseline for session and CLI benchmarks: raw HTTP/2 (h2c) on loopback, one
 * stream, moving `totalBytes` in `chunkBytes` writes each way, with the same 1 MiB stream /
 * 4 MiB connection windows svc uses. The server runs in this process and the client in a
 * child, like svc lite and its clients.
 */
import { spawn } from "node:child_process";
import http2 from "node:http2";

const MIB = 1024 * 1024;

export async function rawHttp2({ totalBytes, chunkBytes = 64 * 1024 }) {
  const chunk = Buffer.alloc(chunkBytes, 0x7a);
  const server = http2.createServer({ settings: { initialWindowSize: MIB } });
  server.on("session", (s) => s.setLocalWindowSize(4 * MIB));
  server.on("stream", (stream, headers) => {
    if (headers[":path"] === "/up") {
      let n = 0;
      stream.on("data", (d) => (n += d.length));
      stream.on("end", () => {
        stream.respond({ ":status": 200 });
        stream.end(String(n));
      });
      return;
    }
    stream.respond({ ":status": 200 });
    let sent = 0;
    const pump = () => {
      while (sent < totalBytes) {
        sent += chunk.length;
        if (!stream.write(chunk)) return void stream.once("drain", pump);
      }
      stream.end();
    };
    pump();
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address();
  const client = `
    const http2 = require("node:http2");
    const total = ${totalBytes}, chunk = Buffer.alloc(${chunkBytes}, 0x7a);
    const s = http2.connect("http://127.0.0.1:${port}", { settings: { initialWindowSize: ${MIB} } });
    s.on("connect", () => s.setLocalWindowSize(${4 * MIB}));
    const time = (fn) => new Promise((res) => { const t0 = process.hrtime.bigint(); fn(() => res(Number(process.hrtime.bigint() - t0) / 1e9)); });
    const up = (done) => {
      const req = s.request({ ":method": "POST", ":path": "/up" });
      let sent = 0;
      const pump = () => { while (sent < total) { sent += chunk.length; if (!req.write(chunk)) return req.once("drain", pump); } req.end(); };
      req.on("data", () => {}); req.on("end", done); pump();
    };
    const down = (done) => { const req = s.request({ ":path": "/down" }); req.end(); req.on("data", () => {}); req.on("end", done); };
    (async () => { const u = await time(up); const d = await time(down); console.log(JSON.stringify({ up: u, down: d })); s.close(); })();
  `;
  try {
    const secs = await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ["-e", client], { stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.on("close", (code) =>
        code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`raw http2 client exited ${code}`)),
      );
    });
    return { uploadMiBs: totalBytes / MIB / secs.up, downloadMiBs: totalBytes / MIB / secs.down };
  } finally {
    server.close();
  }
}
