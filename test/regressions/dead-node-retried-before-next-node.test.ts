/**
 * Bug (issue 45, item 5): a dead node in a list of endpoints cost every command ~0.45 s. The
 * transport retried a refused connection twice on the same node, with backoff (100 ms, then
 * 200 ms, plus jitter), before the Caller moved on to the next node; and since each new
 * process starts at a random node of the list, most one-shot commands met a dead node first
 * and paid for it.
 *
 * Fix: with several nodes, a connection the node refused (nothing reached a server) moves on
 * to the next node at once; the retries, with their backoff, come only once every node of the
 * list has failed to connect, as passes over the whole list. One node alone is retried as
 * before. Checked by the attempts `-v` logs, not by time: each dead node is tried at most once
 * by a command that succeeds, and, with every node dead, each is tried once per pass.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { type Lite, startLite } from "../helpers/lite.js";

let lite: Lite;
beforeAll(async () => {
  lite = await startLite({ inMemory: true });
}, 30_000);
afterAll(async () => {
  await lite?.stop();
});

const DEAD = ["http://127.0.0.1:9", "http://127.0.0.1:7", "http://127.0.0.1:1"];

function envFor(urls: string[]): Record<string, string> {
  return {
    SVC_ACCOUNT_ENDPOINT: urls.join(","),
    SVC_BASIN_ENDPOINT: urls.join(","),
    SVC_ACCESS_TOKEN: lite.token,
  };
}

/** How many attempts `-v` logged for `node` (`GET http://…/v1/basins → connect_failed …`). */
function attemptsAt(stderr: string, node: string): number {
  return stderr.split("\n").filter((l) => l.startsWith(`· GET ${node}/v1/basins → `)).length;
}

describe("a list of endpoints with dead nodes", () => {
  it("a refused connection moves on to the next node at once, without a retry", async () => {
    // Three dead nodes, one up: a process starts at a random node, so most runs meet a dead one.
    let metDead = 0;
    for (let run = 0; run < 6; run++) {
      const r = await runSvc(["basin", "list", "-v"], { env: envFor([...DEAD, lite.url]) });
      expect(r.code, r.stderr).toBe(0);
      expect(attemptsAt(r.stderr, lite.url), r.stderr).toBe(1);
      for (const dead of DEAD) expect(attemptsAt(r.stderr, dead), r.stderr).toBeLessThanOrEqual(1);
      expect(r.stderr, r.stderr).not.toMatch(/retry \d/);
      if (DEAD.some((d) => attemptsAt(r.stderr, d) === 1)) metDead++;
    }
    expect(metDead).toBeGreaterThan(0);
  }, 60_000);

  it("with every node dead, the retries are passes over the whole list", async () => {
    const r = await runSvc(["basin", "list", "-v", "--retries", "2"], { env: envFor(DEAD.slice(0, 2)) });
    expect(r.code, r.stderr).toBe(6);
    for (const dead of DEAD.slice(0, 2)) expect(attemptsAt(r.stderr, dead), r.stderr).toBe(3);
    expect(r.stderr.match(/no node could be reached; retry \d\/2 in \d+ ms/g), r.stderr).toHaveLength(2);
    expect(r.stderr).toContain("(connect_failed)");
  }, 30_000);

  it("one node alone is retried as before", async () => {
    const r = await runSvc(["basin", "list", "-v", "--retries", "2"], { env: envFor(DEAD.slice(0, 1)) });
    expect(r.code, r.stderr).toBe(6);
    expect(attemptsAt(r.stderr, DEAD[0]!), r.stderr).toBe(3);
    expect(r.stderr.match(/retry \d\/2 in \d+ ms after connect_failed/g), r.stderr).toHaveLength(2);
  }, 30_000);
});
