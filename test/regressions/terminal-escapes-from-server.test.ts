/**
 * Attack: terminal escape sequences from a server reached the user's terminal as they were:
 * a stream named `x\e]0;OWNED\a\e[1A` (anyone with create-stream can make one) retitled the
 * window and moved the cursor in `svc stream list`; a record body wrote the clipboard (OSC 52)
 * in `svc read`; a server's error message could do the same on stderr.
 *
 * Now, on a terminal, every text that came from a server is shown with its control characters
 * escaped (`\x1b`; C0 but tab, DEL, C1; newline kept in record output, escaped in names and
 * messages; bytes that are not UTF-8 as `\xHH`; JSON with `\u009b`-style escapes). Piped, the
 * bytes pass exactly as they are.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc } from "../helpers/cli.js";
import { cliEnv, createStreams, type Lite, startLite, uniqueBasin } from "../helpers/lite.js";
import { ptyAvailable, runSvcInPty } from "../helpers/pty.js";

const EVIL_NAME = "x\x1b]0;OWNED\x07\x1b[1A";
const OSC52 = "a\x1b]52;c;SGVsbG8=\x07b\u009bc";

let lite: Lite;
let env: Record<string, string>;
let basin: string;
let fake: Server;
let fakeUrl: string;

beforeAll(async () => {
  lite = await startLite();
  env = cliEnv(lite);
  basin = uniqueBasin("esc");
  await createStreams(lite, basin, [EVIL_NAME, "records"]);
  const put = await runSvc(["append", `svc://${basin}/records`, "-q"], { env, stdin: `${OSC52}\n` });
  expect(put.code, put.stderr).toBe(0);
  const fence = await runSvc(["fence", `svc://${basin}/records`, "tok\x1b]0;FENCE\x07"], { env });
  expect(fence.code, fence.stderr).toBe(0);
  // A server whose error message carries an escape sequence.
  fake = createServer((_req, res) => {
    res
      .writeHead(403, { "content-type": "application/json" })
      .end(
        JSON.stringify({ code: "permission_denied", message: "no\x1b]0;PWNED\x07 way" })
          .replace("\\u001b", "\x1b")
          .replace("\\u0007", "\x07"),
      );
  });
  await new Promise<void>((r) => fake.listen(0, "127.0.0.1", r));
  fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  fake?.close();
  await lite?.stop();
});

/** The raw terminal output holds none of the server's sequences, only their escaped form. */
function expectDefused(raw: string, escaped: string[]): void {
  expect(raw).not.toMatch(/\x1b\]/); // no OSC reached the terminal (svc's own output uses CSI only)
  expect(raw).not.toContain("\x1b[1A");
  expect(raw).not.toContain("\u009b");
  for (const e of escaped) expect(raw).toContain(e);
}

describe.skipIf(!ptyAvailable)("text from a server on a terminal", () => {
  it("stream list shows a name's escapes escaped", async () => {
    const r = await runSvcInPty(["stream", "list", basin], env);
    expect(r.code, r.raw).toBe(0);
    expectDefused(r.raw, ["x\\x1b]0;OWNED\\x07\\x1b[1A"]);
  }, 30_000);

  it("read shows record bodies (text and JSON) and command records escaped", async () => {
    const text = await runSvcInPty(["read", `svc://${basin}/records`, "-s", "0", "-e"], env);
    expect(text.code, text.raw).toBe(0);
    expectDefused(text.raw, ["a\\x1b]52;c;SGVsbG8=\\x07b\\x9bc", "new fencing token"]);
    const json = await runSvcInPty(["read", `svc://${basin}/records`, "-s", "0", "-n", "1", "--format", "json"], env);
    expect(json.code, json.raw).toBe(0);
    expectDefused(json.raw, ['"body":"a\\u001b]52;c;SGVsbG8=\\u0007b\\u009bc"']);
  }, 30_000);

  it("a server's error message is shown escaped on stderr", async () => {
    const r = await runSvcInPty(["basin", "list", "--retries", "0"], {
      SVC_ACCOUNT_ENDPOINT: fakeUrl,
      SVC_BASIN_ENDPOINT: fakeUrl,
      SVC_ACCESS_TOKEN: "t0k3n-for-tests",
    });
    expect(r.code, r.raw).toBe(3);
    expectDefused(r.raw, ["no\\x1b]0;PWNED\\x07 way"]);
  }, 30_000);
});

describe("the same text piped", () => {
  it("passes byte for byte", async () => {
    const list = await runSvc(["stream", "list", basin], { env });
    expect(list.stdout).toContain(`svc://${basin}/${EVIL_NAME}\n`);
    const read = await runSvc(["read", `svc://${basin}/records`, "-s", "0", "-n", "1"], { env });
    expect(read.stdout).toBe(`${OSC52}\n`);
  });
});
