/**
 * Bug (user trial): a hint named a command that does not exist: a closed endpoint said
 * "… or `svc config check`" (`unknown command 'check'`); a TLS certificate that is not trusted
 * got the "running and reachable?" hint; a profile pointing at lite with no token got a
 * garbled one ("check no access token was configured; …").
 *
 * Now every `svc …` command that svc's messages and hints name is a real one: each is taken
 * from the sources and from the hints svc prints, and its `--help` must succeed. An untrusted
 * certificate gets a hint about trusting it (`tls_untrusted`, still exit 6), and a missing
 * token says so in a sentence that names the profile's own `config set` command.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc, tempHome } from "../helpers/cli.js";
import { freePort } from "../helpers/free-port.js";
import { type Lite, startLite } from "../helpers/lite.js";

const SRC = resolve(import.meta.dirname, "../../src");
const VALUE_OPTIONS = new Set([
  "--profile",
  "--config",
  "--access-token",
  "--account-endpoint",
  "--basin-endpoint",
  "--timeout",
  "--retries",
  "--compression",
]);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith(".ts") ? [p] : [];
  });
}

/** Every backticked `svc …` in the code's strings (not its comments). */
function namedInSources(): string[] {
  const found = new Set<string>();
  for (const dir of ["cli", "client", "transport", "format"]) {
    for (const file of sources(join(SRC, dir))) {
      for (const line of readFileSync(file, "utf8").split("\n")) {
        if (/^\s*(\*|\/\/|\/\*)/.test(line)) continue;
        for (const m of line.matchAll(/\\?`(svc [^`\\]*)\\?`/g)) found.add(m[1]!.replace(/\$\{[^}]*\}/g, "X"));
      }
    }
  }
  return [...found];
}

/** The command words of `svc a b --flag x <arg>`: ["a", "b"] (global options with values skipped). */
function commandWords(text: string): string[] {
  const tokens = text.split(/\s+/).slice(1);
  const words: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (VALUE_OPTIONS.has(t)) {
      i++;
      continue;
    }
    if (!/^[a-z_][a-z0-9_-]*$/.test(t)) break;
    words.push(t);
  }
  return words;
}

const helps = new Map<string, Promise<{ code: number | null; stdout: string; stderr: string }>>();
const help = (words: string[]) => {
  const key = words.join(" ");
  if (!helps.has(key)) helps.set(key, runSvc([...words, "--help"]));
  return helps.get(key)!;
};

/** The subcommand names (and aliases) a help text lists under `Commands:`. */
function listed(helpText: string): Set<string> {
  const section = helpText.split(/^Commands:$/m)[1]?.split(/^\S/m)[0] ?? "";
  return new Set([...section.matchAll(/^ {2}(\S+)/gm)].flatMap((m) => m[1]!.split("|")));
}

/**
 * Each command word must be listed by its parent's help (commander shows the parent's help for
 * `svc config check --help`, so the exit code alone proves nothing), and its own `--help` must
 * work; a word after a command without subcommands is its argument.
 */
async function expectRealCommand(text: string): Promise<void> {
  const words = commandWords(text);
  if (words[0] === "help" && words.length > 1) {
    // `svc help TOPIC` (`svc help globals`): a topic is no command; it must print its help. A
    // word made by the code (X: `svc help ${guide}`) stands for a guide.
    const r = await runSvc(words.map((w) => (w === "X" ? "records" : w)));
    expect([text, r.code, r.stdout.length > 0], r.stderr).toEqual([text, 0, true]);
    return;
  }
  let parent = await help([]);
  for (let n = 1; n <= words.length; n++) {
    if (!/^Commands:$/m.test(parent.stdout)) break;
    expect(
      [...listed(parent.stdout)],
      `${text}: svc ${words.slice(0, n - 1).join(" ")} has no command ${words[n - 1]}`,
    ).toContain(words[n - 1]);
    parent = await help(words.slice(0, n));
    expect(parent.code, `${text}: svc ${words.slice(0, n).join(" ")} --help\n${parent.stderr}`).toBe(0);
  }
}

let tls: Lite;
let plain: Lite;
beforeAll(async () => {
  [tls, plain] = await Promise.all([startLite({ args: ["--tls-self"] }), startLite()]);
}, 30_000);
afterAll(async () => {
  await Promise.all([tls?.stop(), plain?.stop()]);
});

describe("hints and messages name real commands", () => {
  it("every `svc …` in the sources is a command whose --help works", async () => {
    const named = namedInSources();
    expect(named.length).toBeGreaterThan(10);
    for (const text of named) await expectRealCommand(text);
  }, 120_000);

  it("a closed endpoint: the hint's commands are real", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const r = await runSvc(["basin", "list", "--retries", "0"], {
      env: { SVC_ACCOUNT_ENDPOINT: url, SVC_BASIN_ENDPOINT: url },
    });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain("running and reachable");
    expect(r.stderr).not.toContain("config check");
    const hinted = [...r.stderr.matchAll(/`(svc [^`]*)`/g)].map((m) => m[1]!);
    expect(hinted.length).toBeGreaterThan(0);
    for (const text of hinted) await expectRealCommand(text);
  });

  it("an untrusted TLS certificate gets a hint about trust, not about the server running", async () => {
    const r = await runSvc(["basin", "list", "--retries", "0"], {
      env: { SVC_ACCOUNT_ENDPOINT: tls.url, SVC_BASIN_ENDPOINT: tls.url, SVC_ACCESS_TOKEN: tls.token },
    });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain("(tls_untrusted)");
    expect(r.stderr).not.toContain("running and reachable");
    expect(r.stderr).toMatch(
      /hint: the certificate of https:\/\/127\.0\.0\.1:\d+ \(from env SVC_ACCOUNT_ENDPOINT\) is not signed by a CA this machine trusts: add that CA with NODE_EXTRA_CA_CERTS=FILE, or pass --insecure/,
    );
  });

  it("a profile pointing at lite with no token: a plain sentence naming the profile's command", async () => {
    const home = tempHome();
    writeFileSync(
      join(home, "config.toml"),
      `[profiles.local]\naccount_endpoint = "${plain.url}"\nbasin_endpoint = "${plain.url}"\n`,
    );
    const r = await runSvc(["--profile", "local", "basin", "list"], {
      home,
      env: { SVC_CONFIG: join(home, "config.toml") },
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(
      "hint: authentication failed: no access token was configured; set SVC_ACCESS_TOKEN, --access-token or `svc --profile local config set access_token -` (svc lite prints its root token in its `export SVC_ACCESS_TOKEN=…` line)",
    );
    for (const text of [...r.stderr.matchAll(/`(svc [^`]*)`/g)].map((m) => m[1]!)) await expectRealCommand(text);
  });
});
