/**
 * Bug (issue 43, item 9): the published library switched on its seeded test bug from two
 * environment variables, silently. With `SVC_CLIENT_TEST_FAULTS=enabled` and
 * `SVC_CLIENT_TEST_FAULT=resend-indefinite` in a program's environment, every appender it made
 * re-sent the inputs in flight when a connection was lost, as if they had never been written:
 * appends of unknown outcome were stored twice, and nothing said so. A library must not change
 * behaviour from the environment.
 *
 * Now the seeded bug is taken only as an explicit appender option (`testFault`, for the
 * checkers' own suite): with the variables set, an input in flight on a lost connection fails
 * as "outcome unknown", and nothing is sent again.
 */
import { afterEach, describe, expect, it } from "vitest";
import { SvcClient } from "../../src/client/client.js";
import { type FaultProxy, startFaultProxy } from "../helpers/fault-proxy.js";
import { createStreams, eventually, type Lite, startLite, uniqueBasin } from "../helpers/lite.js";

const VARS = ["SVC_CLIENT_TEST_FAULTS", "SVC_CLIENT_TEST_FAULT"] as const;
const saved = VARS.map((v) => process.env[v]);
let lite: Lite | undefined;
let proxy: FaultProxy | undefined;
let client: SvcClient | undefined;

afterEach(async () => {
  VARS.forEach((v, i) => {
    if (saved[i] === undefined) delete process.env[v];
    else process.env[v] = saved[i];
  });
  await client?.close();
  await proxy?.close();
  await lite?.stop();
});

const input = (text: string) => ({ records: [{ headers: [], body: new TextEncoder().encode(text) }] });

describe("the client library and the environment", () => {
  it("does not re-send in-flight appends because two variables say so", async () => {
    Object.assign(process.env, { SVC_CLIENT_TEST_FAULTS: "enabled", SVC_CLIENT_TEST_FAULT: "resend-indefinite" });
    lite = await startLite();
    const basin = uniqueBasin("env-fault");
    await createStreams(lite, basin, ["s"]);
    proxy = await startFaultProxy(lite.port);
    client = new SvcClient({ accountEndpoint: proxy.url, basinEndpoint: proxy.url, accessToken: lite.token });
    const stream = client.basin(basin).stream("s");
    const appender = await stream.appender({ ackTimeoutMs: 5_000, reconnectBudgetMs: 5_000 });
    await appender.append(input("first"));

    // The second input leaves the client but never reaches lite; then its connection is lost.
    proxy.blackHole();
    const sent = proxy.clientBytes;
    const second = appender.append(input("second")).then(
      () => "acked",
      (e: Error) => e.message,
    );
    await eventually(async () => proxy!.clientBytes > sent, 5_000, 10);
    proxy.cutAll();
    proxy.heal();

    const outcome = await second;
    expect(outcome).not.toBe("acked");
    expect(outcome).toMatch(/may or may not have been appended/);
    await appender.close().catch(() => undefined);
    expect((await stream.checkTail()).seqNum).toBe(1);
  }, 30_000);
});
