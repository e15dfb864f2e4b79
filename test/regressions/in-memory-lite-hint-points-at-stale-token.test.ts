/**
 * Bug (user trial): with `svc lite --in-memory` on the default port and nothing configured, svc
 * sent the root token left in the default data dir by an earlier lite, got 401, and its hint
 * pointed at that stale root-token file as if it were right.
 *
 * Now that token is never sent to a server that does not know it (it cannot prove it does), and
 * the error says so and what to do: a lite started with --in-memory has its own token and address,
 * the ones it printed (exit 3). With no token file at all, the 401 hint says no token was configured and
 * where lite prints its own.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SVC_BIN } from "../helpers/cli.js";
import { scratchDir } from "../helpers/scratch.js";

// The default address is fixed (127.0.0.1:4243): run in a private network namespace.
const netns = spawnSync("unshare", ["-rn", "sh", "-c", "ip link set lo up"]).status === 0;

function inNetns(script: string, home: string): Promise<{ out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn("unshare", ["-rn", "sh", "-c", `ip link set lo up\n${script}`], {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: home,
        XDG_DATA_HOME: join(home, "data"),
        XDG_CONFIG_HOME: join(home, "config"),
        FORCE_COLOR: "0",
      },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.on("close", () => resolve({ out, err }));
  });
}

const script = `
  node ${SVC_BIN} lite --in-memory >/dev/null 2>"$HOME/lite.err" & LITE=$!
  for i in $(seq 1 100); do node ${SVC_BIN} locations list >/dev/null 2>&1; [ -s "$HOME/lite.err" ] && break; sleep 0.1; done
  sleep 0.5
  node ${SVC_BIN} basin list; echo "list=$?"
  kill $LITE; wait $LITE`;

describe.skipIf(!netns)("svc with nothing configured against svc lite --in-memory on the default port", () => {
  it("a stale root-token file: the token is not sent, and the message says why (exit 3)", async () => {
    const home = scratchDir("svc-inmem-");
    mkdirSync(join(home, "data", "svc", "lite"), { recursive: true });
    writeFileSync(join(home, "data", "svc", "lite", "root-token"), "stale-token-from-an-earlier-lite-0123456789\n", {
      mode: 0o600,
    });
    const r = await inNetns(script, home);
    expect(r.out, r.err).toContain("list=3");
    expect(r.err).toContain("could not prove that it is your svc lite");
    expect(r.err).toContain(
      "hint: if it is your own svc lite started with --in-memory, --data-dir or --root-token-file, use the token and endpoints it printed",
    );
  }, 60_000);

  it("no token file: the 401 hint says no token was configured and where lite prints one", async () => {
    const r = await inNetns(script, scratchDir("svc-inmem-"));
    expect(r.out, r.err).toContain("list=3");
    expect(r.err).toContain("hint: authentication failed: no access token was configured");
    expect(r.err).toContain("svc lite prints its root token");
  }, 60_000);
});
