/**
 * Bug: `svc tail -f` of a pattern matching more streams than one HTTP/2 connection may carry at
 * once (the server's SETTINGS max concurrent streams: lite's 1000 by default, fewer elsewhere)
 * said "following N streams", printed each one's last record, and then never showed a new record
 * of the streams past the limit: their read sessions waited unsent in Node's queue, all on the
 * client's one connection per origin, for a stream of the connection to end. Nothing said so.
 *
 * Now the client's session pool opens another connection to the origin once one carries what its
 * server allows. Here lite allows 5 streams (and 5 read sessions) per connection, and the tail
 * follows 12 streams: a record appended to each of them afterwards comes through.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv } from "../e2e/cli-data-setup.js";
import { eventually } from "../helpers/lite.js";

const STREAMS = 12;
let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv({ SVC_LITE_STREAMS_PER_CONNECTION: "5", SVC_LITE_READ_SESSIONS_PER_CONNECTION: "5" });
  for (let i = 0; i < STREAMS; i++) await d.newStream("wide");
}, 120_000);
afterAll(async () => {
  await d?.stop();
});

describe("svc tail -f of more streams than a connection carries", () => {
  it("follows every one of them", async () => {
    const child = d.spawnSvc(["tail", "-f", `svc://${d.basin}/wide-*`, "-n", "0"]);
    let err = "";
    let out = "";
    child.stderr.setEncoding("utf8").on("data", (s: string) => (err += s));
    child.stdout.setEncoding("utf8").on("data", (s: string) => (out += s));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    try {
      await eventually(async () => err.includes(`following ${STREAMS} streams`), 20_000);
      const names = Array.from({ length: STREAMS }, (_, i) => `wide-${i}`);
      // Appended one by one until each has come through: a session may still be opening.
      for (const name of names) {
        await eventually(
          async () => {
            const put = await d.svc(["append", `svc://${d.basin}/${name}`, "-q"], { stdin: "late\n" });
            expect(put.code, put.stderr).toBe(0);
            await eventually(async () => out.includes(`[${name}] late`), 3_000).catch(() => undefined);
            return out.includes(`[${name}] late`);
          },
          30_000,
          0,
        );
      }
      expect(names.filter((n) => !out.includes(`[${n}] late`))).toEqual([]);
      expect(err).not.toMatch(/^error:/m);
    } finally {
      child.kill("SIGINT");
    }
    expect(await exited).toBe(130);
  }, 120_000);
});
