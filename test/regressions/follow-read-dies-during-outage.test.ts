/**
 * A follow read died after about 11 s of server outage with exit 6: users
 * expect `read -f` (like `tail -F`) to keep waiting while the server is away. Now it keeps
 * reconnecting with capped back-off, says so on stderr once, and resumes where it stopped.
 * Here the built bin/svc follows a stream while svc lite is stopped for 30 s and restarted on
 * the same port and data dir; every record comes out exactly once, in order.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SvcClient } from "../../src/client/client.js";
import { SVC_BIN, tempHome } from "../helpers/cli.js";
import { freePort, type Lite, startLite } from "../helpers/lite.js";
import { scratchDir } from "../helpers/scratch.js";

const OUTAGE_MS = 30_000;
let lite: Lite | undefined;
afterAll(async () => {
  await lite?.stop();
});

async function until(what: string, cond: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("svc read -f across a 30 s server outage", () => {
  it("keeps following, says so once, and resumes with no duplicate or gap", async () => {
    const port = await freePort();
    lite = await startLite({ dataDir: join(scratchDir("svc-outage-"), "data"), args: ["--port", String(port)] });
    const basin = `outage-${process.pid}`;
    const setup = new SvcClient({ accountEndpoint: lite.url, basinEndpoint: lite.url, accessToken: lite.token });
    await setup.basins.create(basin);
    await setup.basin(basin).streams.create("s");
    const append = async (from: number, n: number): Promise<void> => {
      const c = new SvcClient({ accountEndpoint: lite!.url, basinEndpoint: lite!.url, accessToken: lite!.token });
      const enc = new TextEncoder();
      await c
        .basin(basin)
        .stream("s")
        .append({ records: Array.from({ length: n }, (_, i) => ({ headers: [], body: enc.encode(`r${from + i}`) })) });
      await c.close();
    };
    await setup.close();
    await append(0, 10);

    const home = tempHome();
    const reader = spawn(process.execPath, [SVC_BIN, "read", `svc://${basin}/s`, "-s", "0", "-f", "--retries", "0"], {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: home,
        XDG_CONFIG_HOME: join(home, ".config"),
        FORCE_COLOR: "0",
        SVC_ACCOUNT_ENDPOINT: lite.url,
        SVC_BASIN_ENDPOINT: lite.url,
        SVC_ACCESS_TOKEN: lite.token,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    reader.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    reader.stderr.on("data", (c: Buffer) => {
      err += c.toString();
    });
    const exited = new Promise<number | null>((r) => reader.once("exit", (code) => r(code)));
    try {
      await until("the first 10 records", () => out.split("\n").length > 10, 15_000);
      expect(await lite.stop()).toBe(0);
      await new Promise((r) => setTimeout(r, OUTAGE_MS));
      expect(reader.exitCode, `the reader died during the outage: ${err}`).toBeNull();
      expect(err.match(/still following/g)?.length, err).toBe(1);
      await lite.restart();
      expect(lite.port).toBe(port);
      await append(10, 10);
      await until("the 10 records appended after the outage", () => out.split("\n").length > 20, 20_000);
    } finally {
      reader.kill("SIGINT");
      await exited;
    }
    const lines = out.trimEnd().split("\n");
    expect(lines).toEqual(Array.from({ length: 20 }, (_, i) => `r${i}`));
    expect(err).toMatch(/lost the server \(.+\); still following, reconnecting until it is back/);
    expect(err).toMatch(/reconnected, resuming at 10/);
    expect(err.match(/still following/g)?.length).toBe(1);
  }, 90_000);
});
