/**
 * svc lite as a process: the three export lines, the root token file, clean SIGTERM, one
 * server per data dir, durable restarts (graceful and kill -9), --in-memory and --init-file.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Database, open } from "lmdb";
import { afterAll, describe, expect, it } from "vitest";
import { DATA_FORMAT } from "../../src/lite/storage/lmdb/env.js";
import { runSvc } from "../helpers/cli.js";
import { eventually, liteClient, spawnLite, startLite, uniqueBasin } from "../helpers/lite.js";

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "svc-lite-srv-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("svc lite process", () => {
  it("prints exactly three export lines, keeps a 0600 root token, stops cleanly on SIGTERM", async () => {
    const dir = tempDir();
    const s = await spawnLite(["--port", "0", "--data-dir", dir]);
    let out = "";
    s.child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
    });
    const tokenFile = join(dir, "root-token");
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(tokenFile, "utf8").trim()).toBe(s.token);
    expect(Buffer.from(s.token, "base64url").length).toBeGreaterThanOrEqual(16);
    s.child.kill("SIGTERM");
    expect(await s.exited).toBe(0);
    expect(out).toBe(""); // nothing after the three lines
    const again = await spawnLite(["--port", "0", "--data-dir", dir]);
    expect(again.token).toBe(s.token);
    again.child.kill("SIGINT");
    expect(await again.exited).toBe(0);
    expect(again.stderr()).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
  });

  // The server runs in a worker thread of the one process (lite/thread.ts): signals reach the
  // main thread, which relays the first and exits at once on the second.
  it("a second SIGINT during a clean shutdown exits at once with 130", async () => {
    const dir = tempDir();
    const s = await spawnLite(["--port", "0", "--data-dir", dir]);
    // A request whose body never completes holds the clean shutdown (up to its 10 s grace).
    const held = connect(s.port, "127.0.0.1");
    held.on("error", () => undefined);
    await new Promise<void>((resolve) => held.once("connect", () => resolve()));
    held.write(
      `POST /v1/basins HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${s.token}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"basin"`,
    );
    await new Promise((r) => setTimeout(r, 100));
    s.child.kill("SIGINT");
    await eventually(async () => /SIGINT: shutting down/.test(s.stderr()));
    s.child.kill("SIGINT");
    expect(await s.exited).toBe(130);
    expect(s.stderr()).toMatch(/svc lite: forced exit/);
    held.destroy();
  });

  it("reports a failed start with the server's message and exit code, on either thread", async () => {
    const lite = await startLite({ inMemory: true });
    for (const env of [{}, { SVC_LITE_THREAD: "main" }] as Record<string, string>[]) {
      const err = await spawnLite(["--port", String(lite.port), "--in-memory"], env).then(
        () => "started",
        (e: Error) => e.message,
      );
      expect(err).toMatch(/exited \(2\) before listening/);
      expect(err).toMatch(/^error: svc lite: port \d+ on 127\.0\.0\.1 is already in use/m);
    }
    const main = await spawnLite(["--port", "0", "--in-memory"], { SVC_LITE_THREAD: "main" });
    expect((await liteClient(main).call("GET", "/health")).status).toBe(200);
    main.child.kill("SIGTERM");
    expect(await main.exited).toBe(0);
    expect(await lite.stop()).toBe(0);
  });

  it("refuses a second server on the same data dir with a one-line message", async () => {
    const lite = await startLite();
    const err = await spawnLite(["--port", "0", "--data-dir", lite.dataDir!]).then(
      () => "started",
      (e: Error) => e.message,
    );
    expect(err).toMatch(/another svc lite server is already using the data dir/);
    expect((await liteClient(lite).call("GET", "/health")).status).toBe(200);
    expect(await lite.stop()).toBe(0);
  });

  it("serves every acknowledged record after a graceful restart and after kill -9", async () => {
    const lite = await startLite({ keepDir: true });
    dirs.push(lite.dataDir!);
    let c = liteClient(lite);
    const basin = uniqueBasin();
    await c.call("POST", "/v1/basins", { json: { basin, config: { create_stream_on_append: true } } });
    const ack1 = (
      await c.call("POST", "/v1/streams/s/records", {
        basin,
        json: { records: [{ body: "one" }, { body: "two" }], fencing_token: "" },
      })
    ).json();
    await c.call("POST", "/v1/streams/s/records", {
      basin,
      json: { records: [{ headers: [["", "fence"]], body: "tok" }] },
    });
    expect(await lite.stop()).toBe(0);
    await lite.restart();
    c = liteClient(lite);
    expect(
      (await c.call("GET", "/v1/streams/s/records", { basin, query: { seq_num: 0 } }))
        .json()
        .records.map((r: any) => r.body),
    ).toEqual(["one", "two", "tok"]);
    const fenced = await c.call("POST", "/v1/streams/s/records", {
      basin,
      json: { records: [{ body: "x" }], fencing_token: "nope" },
    });
    expect(fenced.json()).toEqual({ fencing_token_mismatch: "tok" });
    const ack3 = (
      await c.call("POST", "/v1/streams/s/records", {
        basin,
        json: { records: [{ body: "three" }], fencing_token: "tok" },
      })
    ).json();
    expect(ack3.start.seq_num).toBe(3);
    await lite.kill9();
    await lite.restart();
    c = liteClient(lite);
    const tail = (await c.call("GET", "/v1/streams/s/records/tail", { basin })).json().tail;
    expect(tail.seq_num).toBe(4);
    expect(tail.timestamp).toBeGreaterThanOrEqual(ack1.end.timestamp);
    const next = (
      await c.call("POST", "/v1/streams/s/records", { basin, json: { records: [{ body: "four" }] } })
    ).json();
    expect(next.start.seq_num).toBe(4);
    expect(await lite.stop()).toBe(0);
  });

  it("refuses a data dir of a newer data format at start, and marks an older one with its own", async () => {
    const lite = await startLite({ keepDir: true });
    const dir = lite.dataDir!;
    dirs.push(dir);
    let c = liteClient(lite);
    const basin = uniqueBasin();
    await c.call("POST", "/v1/basins", { json: { basin, config: { create_stream_on_append: true } } });
    expect(
      (await c.call("POST", "/v1/streams/s/records", { basin, json: { records: [{ body: "kept" }] } })).status,
    ).toBe(200);
    expect(await lite.stop()).toBe(0);
    const file = join(dir, "data.mdb");
    const misc = async <T>(change: (db: Database<number, string>) => T): Promise<T> => {
      const env = open({ path: file, maxDbs: 12 });
      try {
        return change(env.openDB<number, string>({ name: "misc", encoding: "json" }));
      } finally {
        await env.close();
      }
    };
    expect(await misc((db) => db.get("dataFormat"))).toBe(DATA_FORMAT);

    await misc((db) => db.putSync("dataFormat", DATA_FORMAT + 1));
    const newer = await runSvc(["lite", "--port", "0", "--data-dir", dir], { timeoutMs: 15_000 });
    expect(newer.code).toBe(1);
    expect(newer.stdout).toBe("");
    expect(newer.stderr).toBe(
      `error: ${file} was written by a newer svc (data format ${DATA_FORMAT + 1}; this svc reads up to ${DATA_FORMAT}): upgrade svc\n`,
    );
    // Nothing was changed, and the lock was let go: the same refusal again, not "in use".
    expect((await runSvc(["lite", "--port", "0", "--data-dir", dir], { timeoutMs: 15_000 })).stderr).toBe(newer.stderr);

    // A dir from before the format key (an older svc): opened, served, and marked.
    await misc((db) => db.removeSync("dataFormat"));
    await lite.restart();
    c = liteClient(lite);
    expect(
      (await c.call("GET", "/v1/streams/s/records", { basin, query: { seq_num: 0 } }))
        .json()
        .records.map((r: { body: string }) => r.body),
    ).toEqual(["kept"]);
    expect(await lite.stop()).toBe(0);
    expect(await misc((db) => db.get("dataFormat"))).toBe(DATA_FORMAT);
  });

  it("--in-memory keeps nothing and makes a fresh token per run", async () => {
    const a = await startLite({ inMemory: true });
    const c = liteClient(a);
    const basin = uniqueBasin();
    expect((await c.call("POST", "/v1/basins", { json: { basin } })).status).toBe(201);
    const token = a.token;
    expect(await a.stop()).toBe(0);
    await a.restart();
    expect(a.token).not.toBe(token);
    expect((await liteClient(a).call("GET", `/v1/basins/${basin}`)).status).toBe(404);
    expect(await a.stop()).toBe(0);
  });

  it("--init-file provisions basins and streams idempotently; a bad spec stops the start", async () => {
    const dir = tempDir();
    const spec = join(dir, "spec.json");
    const basin = uniqueBasin("init");
    writeFileSync(
      spec,
      JSON.stringify({
        basins: [
          {
            name: basin,
            config: {
              create_stream_on_append: true,
              default_stream_config: { storage_class: "standard", retention_policy: "7days" },
            },
            streams: [
              {
                name: "events",
                config: {
                  retention_policy: "infinite",
                  timestamping: { mode: "arrival" },
                  delete_on_empty: { min_age: "1h" },
                },
              },
            ],
          },
        ],
      }),
    );
    const lite = await startLite({ args: ["--init-file", spec] });
    const c = liteClient(lite);
    expect((await c.call("GET", `/v1/basins/${basin}`)).json()).toMatchObject({
      create_stream_on_append: true,
      default_stream_config: { storage_class: "standard", retention_policy: { age: 604800 } },
    });
    expect((await c.call("GET", "/v1/streams/events", { basin })).json()).toEqual({
      storage_class: "standard",
      retention_policy: { infinite: {} },
      timestamping: { mode: "arrival", uncapped: false },
      delete_on_empty: { min_age_secs: 3600 },
    });
    expect(await lite.stop()).toBe(0);
    const dataDir = lite.dataDir!;
    const again = await spawnLite(["--port", "0", "--data-dir", tempDir(), "--init-file", spec]);
    again.child.kill("SIGTERM");
    await again.exited;
    expect(again.stderr()).toContain(`basin "${basin}": created`); // names quoted in the log
    void dataDir;
    writeFileSync(spec, JSON.stringify({ basins: [{ name: basin, colour: "blue" }] }));
    const bad = await spawnLite(["--port", "0", "--in-memory", "--init-file", spec]).then(
      () => "started",
      (e: Error) => e.message,
    );
    expect(bad).toMatch(/unknown field "colour"/);
  });

  it("restarting with the same init file reports no change", async () => {
    const dir = tempDir();
    const spec = join(dir, "spec.json");
    const basin = uniqueBasin("idem");
    writeFileSync(spec, JSON.stringify({ basins: [{ name: basin, streams: [{ name: "s" }] }] }));
    const data = tempDir();
    for (const expected of ["created", "config unchanged"]) {
      const s = await spawnLite(["--port", "0", "--data-dir", data, "--init-file", spec]);
      s.child.kill("SIGTERM");
      expect(await s.exited).toBe(0);
      expect(s.stderr()).toContain(`basin "${basin}": ${expected}`);
      expect(s.stderr()).toContain(`stream "${basin}"/"s": ${expected}`);
    }
  });
});
