/**
 * Bug (security, issue 43 item 7): a token the user configured, with no endpoint configured,
 * went to the default local address 127.0.0.1:4243 without the proof of identity that the
 * default root token gets there. Any local user listening on that port while the user's lite
 * was down captured it: `SVC_ACCESS_TOKEN` set alone, or a config file whose `access_token` sits
 * at its top level while its endpoints sit in a profile that is not selected.
 *
 * Now a configured token goes to the default address only once the server there proves it
 * knows the root token in lite's default data dir (it is the user's own lite); with no such
 * file there is nothing to prove with, and svc refuses before connecting (exit 2, with a hint
 * to set the endpoints). The user's own lite still gets the token.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SVC_BIN } from "../helpers/cli.js";
import { scratchDir } from "../helpers/scratch.js";

// The default address is fixed (127.0.0.1:4243): run in a private network namespace.
const netns = spawnSync("unshare", ["-rn", "sh", "-c", "ip link set lo up"]).status === 0;

function inNetns(
  script: string,
  home: string,
  env: Record<string, string> = {},
): Promise<{ out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn("unshare", ["-rn", "sh", "-c", `ip link set lo up\n${script}`], {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: home,
        XDG_DATA_HOME: join(home, "data"),
        XDG_CONFIG_HOME: join(home, "config"),
        FORCE_COLOR: "0",
        ...env,
      },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.on("close", () => resolve({ out, err }));
  });
}

/** An impostor on the default port printing every Authorization header it receives. */
const impostor = (commands: string): string => `
  node -e 'require("http").createServer((q,s)=>{if(q.headers.authorization)console.log("CAPTURED "+q.headers.authorization);s.end("{}")}).listen(4243,"127.0.0.1",()=>console.log("LISTENING"))' > "$HOME/fake.out" & FAKE=$!
  for i in $(seq 1 100); do grep -q LISTENING "$HOME/fake.out" 2>/dev/null && break; sleep 0.05; done
  ${commands}
  kill $FAKE; wait $FAKE 2>/dev/null; cat "$HOME/fake.out"`;

const SECRET = "configured-secret-token-0123456789";

describe.skipIf(!netns)("a configured token with no endpoint configured, on 127.0.0.1:4243", () => {
  it("SVC_ACCESS_TOKEN alone, no lite root token: refused before connecting (exit 2), never captured", async () => {
    const home = scratchDir("svc-cfgtok-");
    const r = await inNetns(
      impostor(
        `node ${SVC_BIN} basin list; echo "list=$?"; echo x | node ${SVC_BIN} append svc://b/s; echo "append=$?"`,
      ),
      home,
      { SVC_ACCESS_TOKEN: SECRET },
    );
    expect(r.out, r.err).toContain("list=2");
    expect(r.out).toContain("append=2");
    expect(r.out).not.toContain("CAPTURED");
    expect(r.err).toContain("only once that lite proves it is yours");
    expect(r.err).toContain("hint: set the endpoints too");
    expect(r.err).not.toContain(SECRET);
  }, 60_000);

  it("a config file's token with its endpoints in an unselected profile: the impostor cannot prove (exit 3)", async () => {
    const home = scratchDir("svc-cfgtok-");
    mkdirSync(join(home, "config", "svc"), { recursive: true, mode: 0o700 });
    writeFileSync(
      join(home, "config", "svc", "config.toml"),
      `access_token = "${SECRET}"\n[profiles.prod]\naccount_endpoint = "https://a.example"\nbasin_endpoint = "https://a.example"\n`,
      { mode: 0o600 },
    );
    mkdirSync(join(home, "data", "svc", "lite"), { recursive: true });
    writeFileSync(join(home, "data", "svc", "lite", "root-token"), "root-token-of-the-users-lite-0123456789\n", {
      mode: 0o600,
    });
    const r = await inNetns(impostor(`node ${SVC_BIN} basin list; echo "list=$?"`), home);
    expect(r.out, r.err).toContain("list=3");
    expect(r.out).not.toContain("CAPTURED");
    expect(r.err).toContain("could not prove that it is your svc lite");
    expect(r.err).toContain("so the access token from config");
    expect(r.err).toContain("hint: if it is your own svc lite started with --in-memory");
  }, 60_000);

  it("the user's own lite proves itself and gets the configured token", async () => {
    const home = scratchDir("svc-cfgtok-");
    const r = await inNetns(
      `node ${SVC_BIN} lite >/dev/null 2>"$HOME/lite.err" & LITE=$!
      for i in $(seq 1 100); do node ${SVC_BIN} basin list >/dev/null 2>&1 && break; sleep 0.1; done
      SVC_ACCESS_TOKEN=$(cat "$HOME/data/svc/lite/root-token") node ${SVC_BIN} basin create own-lite-basin; echo "create=$?"
      SVC_ACCESS_TOKEN=wrong-token-0123456789 node ${SVC_BIN} basin list; echo "wrong=$?"
      kill $LITE; wait $LITE`,
      home,
    );
    expect(r.out, r.err).toContain("create=0");
    // Proven, then sent: lite itself refuses a token it did not issue (401, exit 3).
    expect(r.out).toContain("wrong=3");
    expect(r.err).toContain("(401 ");
  }, 60_000);
});
