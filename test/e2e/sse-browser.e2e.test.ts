/// <reference lib="dom" />
/**
 * A real browser reads a stream over SSE (protocol.md §6.9, Appendix B): headless Chromium
 * (Debian's `chromium`, driven by playwright-core) loads a page from ANOTHER origin, which
 * reads `text/event-stream` from svc lite with `fetch` and a bearer token (a native
 * EventSource cannot send Authorization), and shows the records. This exercises CORS
 * (preflight for Authorization / svc-basin / svc-format), the SSE event format, and follow.
 *
 * `.ci/run` installs chromium; on a machine without it this suite is skipped, loudly.
 */
import { existsSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lite, startLite } from "../helpers/lite.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium)
  console.warn(`SKIPPED the browser SSE test: no Chromium at ${CHROMIUM} (.ci/run installs Debian's chromium)`);

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>svc SSE reader</title>
<ul id="records"></ul>
<p id="status">starting</p>
<script>
async function readStream(endpoint, token, basin, stream) {
  const status = document.getElementById("status");
  const list = document.getElementById("records");
  const res = await fetch(endpoint + "/v1/streams/" + encodeURIComponent(stream) + "/records?seq_num=0", {
    headers: { accept: "text/event-stream", authorization: "Bearer " + token, "svc-basin": basin, "svc-format": "raw" },
  });
  status.textContent = "http " + res.status;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let cut;
    while ((cut = buffer.indexOf("\\n\\n")) >= 0) {
      const event = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const fields = Object.fromEntries(event.split("\\n").map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1).trim()]));
      if (fields.event === "batch") {
        for (const r of JSON.parse(fields.data).records) {
          const li = document.createElement("li");
          li.textContent = r.seq_num + ":" + (r.body ?? "");
          list.appendChild(li);
        }
        status.textContent = "batch " + fields.id;
      } else if (fields.event === "ping") {
        status.textContent = "following";
      } else if (fields.event === "error") {
        status.textContent = "error " + fields.data;
      }
    }
  }
}
window.readStream = readStream;
</script>`;

describe.skipIf(!haveChromium)("SSE in a real browser", () => {
  let lite: Lite;
  let page: http.Server;
  let pageUrl: string;
  const basin = "browser-sse-01";
  const stream = "web/events";

  const call = async (method: "POST" | "GET", path: string, body?: unknown, extra: Record<string, string> = {}) => {
    const res = await request(`${lite.url}/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${lite.token}`, "content-type": "application/json", ...extra },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    expect(res.statusCode, text).toBeLessThan(300);
    return text;
  };

  beforeAll(async () => {
    lite = await startLite();
    await call("POST", "/basins", { basin });
    await call("POST", "/streams", { stream }, { "svc-basin": basin });
    await call(
      "POST",
      `/streams/${encodeURIComponent(stream)}/records`,
      { records: [{ body: "first" }, { body: "second" }] },
      { "svc-basin": basin },
    );
    page = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(PAGE);
    });
    await new Promise<void>((r) => page.listen(0, "127.0.0.1", r));
    // Another origin: "localhost" with the page server's port, while lite is on 127.0.0.1.
    pageUrl = `http://localhost:${(page.address() as AddressInfo).port}/`;
  });

  afterAll(async () => {
    await new Promise((r) => page?.close(r));
    await lite?.stop();
  });

  it("shows records delivered over SSE with a bearer token, then follows new ones", async () => {
    const { chromium } = await import("playwright-core");
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    try {
      const tab = await browser.newPage();
      await tab.goto(pageUrl);
      await tab.evaluate(
        ([endpoint, token, b, s]) => {
          void (window as unknown as { readStream: (...a: string[]) => Promise<void> }).readStream(
            endpoint!,
            token!,
            b!,
            s!,
          );
        },
        [lite.url, lite.token, basin, stream],
      );
      await tab.waitForFunction(() => document.querySelectorAll("#records li").length >= 2, undefined, {
        timeout: 15_000,
      });
      await tab.waitForFunction(() => document.getElementById("status")?.textContent === "following", undefined, {
        timeout: 15_000,
      });
      await call(
        "POST",
        `/streams/${encodeURIComponent(stream)}/records`,
        { records: [{ body: "live" }] },
        { "svc-basin": basin },
      );
      await tab.waitForFunction(() => document.querySelectorAll("#records li").length >= 3, undefined, {
        timeout: 15_000,
      });
      const shown = await tab.$$eval("#records li", (els) => els.map((e) => e.textContent));
      expect(shown).toEqual(["0:first", "1:second", "2:live"]);
    } finally {
      await browser.close();
    }
  });
});
