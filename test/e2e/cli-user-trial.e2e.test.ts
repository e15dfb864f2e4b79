/**
 * What a new user's trial asked of the CLI, each as a child process against lite:
 * `--json` on append and read (3), `--format binary` bytes in = bytes out (4), help (8),
 * `diff`, `version`, completion (11).
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bashCompletion } from "../helpers/bash-completion.js";
import { scratchDir } from "../helpers/scratch.js";
import { type DataEnv, dataEnv } from "./cli-data-setup.js";

let d: DataEnv;
beforeAll(async () => {
  d = await dataEnv();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

describe("--json on append and read (item 3)", () => {
  it("append --json prints one JSON summary; read --json is --format json; a conflicting --format is refused", async () => {
    const uri = await d.newStream("json");
    const a = await d.svc(["append", uri, "--json", "--max-batch-records", "2"], { stdin: "a\nb\nc\n" });
    expect(a.code, a.stderr).toBe(0);
    const doc = JSON.parse(a.stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({ records: 3, batches: 2, start: 0, end: 3, tail: { seq_num: 3 } });
    expect(typeof doc.duration_ms).toBe("number");
    expect(doc.bytes).toBe(27);
    const r = await d.svc(["read", uri, "-s", "0", "-e", "--json"]);
    expect(
      r.stdout
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as { body: string }).body),
    ).toEqual(["a", "b", "c"]);
    const bad = await d.svc(["read", uri, "-s", "0", "-e", "--json", "--format", "text"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--json is --format json/);
  });
});

describe("--format binary (item 4)", () => {
  it("read -n 1 --format binary > file gives a file identical to the input (cmp)", async () => {
    const dir = scratchDir("svc-bin-");
    const input = join(dir, "photo.jpg");
    const output = join(dir, "copy.jpg");
    writeFileSync(input, randomBytes(300_000));
    const uri = await d.newStream("bin");
    expect((await d.svc(["append", uri, "--whole", "-i", input])).code).toBe(0);
    const sh = spawnSync(
      "bash",
      [
        "-c",
        `"${process.execPath}" "${join(import.meta.dirname, "../../bin/svc.js")}" read '${uri}' -s 0 -n 1 --format binary > '${output}'`,
      ],
      { env: { ...process.env, ...d.env, HOME: dir } },
    );
    expect(sh.status, sh.stderr.toString()).toBe(0);
    expect(spawnSync("cmp", [input, output]).status).toBe(0);
  });

  it("writes bodies back to back with no delimiter unless asked; -0 separates them", async () => {
    const uri = await d.newStream("bin");
    expect((await d.svc(["append", uri], { stdin: "ab\ncd\n" })).code).toBe(0);
    expect((await d.svc(["read", uri, "-s", "0", "-e", "--format", "binary"])).stdout).toBe("abcd");
    expect((await d.svc(["read", uri, "-s", "0", "-e", "--format", "binary", "-0"])).stdout).toBe("ab\0cd\0");
    const dir = scratchDir("svc-bin-");
    expect((await d.svc(["read", uri, "-s", "0", "-e", "--format", "binary", "-o", join(dir, "o")])).code).toBe(0);
    expect(readFileSync(join(dir, "o"), "utf8")).toBe("abcd");
  });
});

/** Every command path, from the completion tree (all commands loaded). */
async function commandPaths(): Promise<string[][]> {
  const r = await d.svc(["completion", "bash"]);
  return [...r.stdout.matchAll(/^ {4}"(svc[^":]*)"\) cmds=/gm)]
    .map((m) => m[1]!.split(" ").slice(1))
    .filter((p) => p.length > 0);
}

describe("help (item 8)", () => {
  it("every command's help points to the global flags, and every flag its examples use is in that command's help or a global one", async () => {
    const paths = (await commandPaths()).filter((p) => p[0] !== "lite"); // lite's help is the server's own (below)
    expect(paths.length).toBeGreaterThan(25);
    const helps = new Map<string, string>();
    for (const p of paths) helps.set(p.join(" "), (await d.svc([...p, "--help"])).stdout);
    const globals = (await d.svc(["help", "globals"])).stdout;
    const problems: string[] = [];
    for (const [path, h] of helps) {
      if (!h.includes("`svc help globals`")) problems.push(`${path}: no pointer to the global flags`);
      const examples = h.split("Examples:")[1] ?? "";
      for (const line of examples.split("\n").filter((l) => l.trim().startsWith("$ svc"))) {
        for (const segment of line.replace(/\s#\s.*$/, "").split(/\|\||&&|\||;|>|\$\(/)) {
          const words = segment.trim().split(/\s+/);
          if (words[0] !== "svc") continue;
          // The deepest command the example names; its help must list every flag the example uses.
          let cmd = "";
          for (let k = 1; k < words.length && helps.has([...words.slice(1, k + 1)].join(" ")); k++)
            cmd = words.slice(1, k + 1).join(" ");
          const own = (helps.get(cmd) ?? "").split("Examples:")[0]!;
          for (const f of words
            .filter((w) => /^--?[a-zA-Z][\w-]*$/.test(w.split("=")[0]!))
            .map((w) => w.split("=")[0]!)) {
            const listed = new RegExp(`(^|[\\s,])${f}([\\s,=<\\[]|$)`, "m");
            if (!listed.test(own) && !listed.test(globals))
              problems.push(`${path}: example "svc ${cmd} … ${f}": ${f} is not in that help`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);

  it("svc help lite is svc lite --help, with examples; read --help says it starts at the tail and follows", async () => {
    const a = await d.svc(["help", "lite"]);
    const b = await d.svc(["lite", "--help"]);
    expect(a.stdout).toBe(b.stdout);
    expect(a.stdout).toMatch(/Examples:\n\s+svc lite/);
    const r = await d.svc(["read", "--help"]);
    expect(r.stdout.replace(/\s+/g, " ")).toMatch(/starts at the tail and follows new records/);
  });
});

describe("diff, version, completion (item 11)", () => {
  it("diff compares two streams, a stream with its basin's defaults, and the server with a spec; --json; --exit-code 10", async () => {
    const a = await d.newStream("da");
    const b = `svc://${d.basin}/db`;
    expect((await d.svc(["stream", "create", b, "--retention", "1d", "--storage-class", "standard"])).code).toBe(0);
    const t = await d.svc(["diff", a, b]);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toBe(`--- ${a}\n+++ ${b}\n~ storage_class: express → standard\n~ retention_policy: 1w → 1d\n`);
    const j = await d.svc(["diff", a, b, "--json", "--exit-code"]);
    expect(j.code).toBe(10);
    expect(JSON.parse(j.stdout)).toEqual({
      resource: "stream",
      left: a,
      right: b,
      differences: [
        { path: "storage_class", left: "express", right: "standard" },
        { path: "retention_policy", left: "1w", right: "1d" }, // durations as the spec writes them
      ],
    });
    const same = await d.svc(["diff", a, `svc://${d.basin}`, "--exit-code"]);
    expect(same).toMatchObject({ code: 0, stdout: "" });
    expect(same.stderr).toMatch(/no differences/);
    const dir = scratchDir("svc-diff-");
    const spec = join(dir, "spec.json");
    writeFileSync(
      spec,
      JSON.stringify({
        basins: [
          { name: d.basin, streams: [{ name: "db", config: { retention_policy: "2d", storage_class: "standard" } }] },
        ],
      }),
    );
    const s = await d.svc(["diff", spec, "--exit-code"]);
    expect(s.code, s.stderr).toBe(10);
    expect(s.stdout).toContain("retention_policy: 1d → 2d");
    expect((await d.svc(["diff", "nope.json"])).code).toBe(2);
  });

  it("svc version prints the version; --json adds node and platform", async () => {
    const v = await d.svc(["version"]);
    const V = await d.svc(["--version"]);
    expect(v.stdout).toBe(V.stdout);
    expect(JSON.parse((await d.svc(["version", "--json"])).stdout)).toMatchObject({
      version: V.stdout.trim(),
      node: process.versions.node,
      platform: process.platform,
    });
  });

  it("bash completion offers flag values, and basin and stream names from the server; powershell says it is not there", async () => {
    const uri = await d.newStream("compl");
    const bash = await bashCompletion(d);
    const complete = (line: string) =>
      bash
        .complete(line, { after: `printf '%s\\n' "\${COMPREPLY[@]}"` })
        .stdout.split("\n")
        .filter((l) => l !== "");
    expect(complete("svc read x --format j")).toEqual(["json", "json-base64"]);
    expect(complete("svc append x --transport u")).toEqual(["unary"]);
    // bash splits at ':' so the word is `//basin/…`; the candidates complete that word.
    expect(complete(`svc read svc://${d.basin}/com`)).toEqual([uri.slice("svc:".length)]);
    expect(complete(`svc basin get ${d.basin.slice(0, 8)}`)).toContain(d.basin);
    // A server that is away: nothing, quickly.
    const started = Date.now();
    const away = bash.complete("svc read svc://x", {
      after: `echo "n=\${#COMPREPLY[@]}"`,
      env: {
        SVC_ACCOUNT_ENDPOINT: "http://10.255.255.1:9",
        SVC_BASIN_ENDPOINT: "http://10.255.255.1:9",
        SVC_ACCESS_TOKEN: "t",
      },
    });
    expect(away.stdout.trim()).toBe("n=0");
    expect(Date.now() - started).toBeLessThan(4_000);
    const p = await d.svc(["completion", "powershell"]);
    expect(p.code).toBe(2);
    expect(p.stderr).toMatch(/no PowerShell completion yet; bash, zsh and fish/);
  });
});
