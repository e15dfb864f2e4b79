/**
 * A closed stdout pipe (docs/design/reliability.md, "A closed pipe"): `svc read … | head -1` (and
 * `head -c 10`, cutting a record) must exit 0 with nothing on stderr, every time: EPIPE is a race,
 * so 200 runs, with output sizes from 1 KiB to 10 MiB, bounded and following reads. Plus Ctrl-C on
 * a following read: exit 130, output ending at a record boundary.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SVC_BIN, tempHome } from "../helpers/cli.js";
import { scratchDir } from "../helpers/scratch.js";
import { type DataEnv, dataEnv } from "./cli-data-setup.js";

let d: DataEnv;
let uri: string;
const RECORDS = 10_240; // 1 KiB lines: 10 MiB

beforeAll(async () => {
  d = await dataEnv();
  uri = await d.newStream();
  const file = join(scratchDir("svc-pipe-"), "lines.txt");
  const line = (i: number) => `${String(i).padStart(8, "0")} ${"x".repeat(1014)}`;
  writeFileSync(file, Array.from({ length: RECORDS }, (_, i) => line(i)).join("\n") + "\n");
  const a = await d.svc(["append", uri, "-i", file, "-q"]);
  expect(a.code, a.stderr).toBe(0);
}, 120_000);
afterAll(async () => {
  await d?.stop();
});

function pipeline(args: string[], consumer: string): Promise<{ status: string; stderr: string }> {
  const home = tempHome();
  const quoted = args.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  const script = `set -o pipefail; "${process.execPath}" "${SVC_BIN}" ${quoted} | ${consumer} > /dev/null; echo "\${PIPESTATUS[0]} \${PIPESTATUS[1]}"`;
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", script], {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: home,
        XDG_CONFIG_HOME: join(home, ".config"),
        XDG_DATA_HOME: join(home, "data"),
        FORCE_COLOR: "0",
        ...d.env,
      },
    });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (s: string) => (out += s));
    child.stderr.setEncoding("utf8").on("data", (s: string) => (err += s));
    child.on("error", reject);
    child.on("close", () => resolve({ status: out.trim(), stderr: err }));
  });
}

describe("svc read | head", () => {
  it("exits 0 with an empty stderr, 200 times out of 200", async () => {
    const runs = 200;
    const failures: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < runs) {
        const i = next++;
        const count = [1, 8, 100, 1024, 4096, RECORDS][i % 6]!;
        const follow = i % 5 === 0;
        const args = follow
          ? ["read", uri, "-s", "0"]
          : ["read", uri, "-s", "0", "-n", String(count), ...(i % 3 === 0 ? ["--format", "json"] : [])];
        const consumer = i % 4 === 3 ? "head -c 10" : "head -1";
        const r = await pipeline(args, consumer);
        if (r.status !== "0 0" || r.stderr !== "")
          failures.push(
            `run ${i} (${args.slice(2).join(" ")} | ${consumer}): status ${r.status}, stderr ${JSON.stringify(r.stderr)}`,
          );
      }
    };
    await Promise.all([worker(), worker(), worker()]);
    expect(failures).toEqual([]);
  }, 300_000);

  it("Ctrl-C on a following read exits 130 with whole records on stdout", async () => {
    const child = d.spawnSvc(["read", uri, "-s", String(RECORDS - 50), "--format", "json"]);
    const closed = new Promise((r) => child.on("close", r));
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (s: string) => (out += s));
    for (let i = 0; i < 200 && out.split("\n").length <= 50; i++) await new Promise((r) => setTimeout(r, 20));
    child.kill("SIGINT");
    const code = await closed;
    expect(code).toBe(130);
    expect(out.endsWith("\n")).toBe(true);
    expect(
      out
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).seq_num),
    ).toEqual(Array.from({ length: 50 }, (_, i) => RECORDS - 50 + i));
  });
});
