/**
 * Bug: the README's copy example,
 * `svc read SRC --from-beginning -e --format json-base64 | svc append DST --format json-base64`,
 * replayed the source's fence and trim command records onto the copy: the copy was trimmed
 * with a sequence number of the source (records lost) and fenced (later writers refused).
 * Now `append` drops command records from its input by default with a note on stderr;
 * `--commands replay` appends fences, and a trim is never replayed.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataEnv, dataEnv, decodeJsonBase64 } from "../e2e/cli-data-setup.js";
import { SVC_BIN, tempHome } from "../helpers/cli.js";
import { eventually } from "../helpers/lite.js";

let d: DataEnv;
let src: string;
beforeAll(async () => {
  d = await dataEnv();
  src = await d.newStream("src");
  const steps: string[][] = [
    ["append", src, "-q"], // stdin below
    ["trim", src, "2", "--yes"],
    ["fence", src, "writer-1"],
    ["append", src, "-q", "-F", "writer-1"],
  ];
  const inputs = ["r0\nr1\nr2\n", "", "", "r5\nr6\n"];
  for (const [i, args] of steps.entries()) {
    const r = await d.svc(args, { stdin: inputs[i]! });
    expect(r.code, r.stderr).toBe(0);
  }
  // A trim is carried out by the sweep a little later (protocol.md §7.7): the copies below read
  // the source once it is, so what they copy and what the source holds afterwards agree.
  await eventually(async () => (await records(src))[0]?.body.toString() === "r2");
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

/** A real shell pipe, as a user types it. */
function pipe(left: string[], right: string[]): Promise<{ code: string; stderr: string }> {
  const home = tempHome();
  const q = (a: string[]) => a.map((x) => `'${x}'`).join(" ");
  const script = `set -o pipefail; "${process.execPath}" "${SVC_BIN}" ${q(left)} | "${process.execPath}" "${SVC_BIN}" ${q(right)}; echo "rc=$?"`;
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", script], {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: home,
        XDG_CONFIG_HOME: join(home, ".config"),
        FORCE_COLOR: "0",
        ...d.env,
      },
    });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (s: string) => (out += s));
    child.stderr.setEncoding("utf8").on("data", (s: string) => (err += s));
    child.on("error", reject);
    child.on("close", () => resolve({ code: out.trim(), stderr: err }));
  });
}

async function records(uri: string) {
  const r = await d.svc(["read", uri, "--from-beginning", "-e", "--format", "json-base64"]);
  expect(r.code, r.stderr).toBe(0);
  return decodeJsonBase64(r.stdout);
}
const isCommand = (r: { headers: [Buffer, Buffer][] }) => r.headers.length === 1 && r.headers[0]![0].length === 0;

describe("copying a stream copies its data, not its commands", () => {
  it("by default: every data record arrives, no trim, no fence, and stderr says what was skipped", async () => {
    const source = await records(src);
    expect(source.filter(isCommand)).toHaveLength(2);
    const dst = await d.newStream("dst");
    const r = await pipe(
      ["read", src, "--from-beginning", "-e", "--format", "json-base64"],
      ["append", dst, "--format", "json-base64"],
    );
    expect(r.code, r.stderr).toBe("rc=0");
    expect(r.stderr).toMatch(/skipped 2 command records in the input \(1 trim, 1 fence\)/);
    const copy = await records(dst);
    expect(copy.some(isCommand)).toBe(false);
    expect(copy.map((x) => x.body.toString())).toEqual(
      source.filter((x) => !isCommand(x)).map((x) => x.body.toString()),
    );
    // Not fenced: the current token is still empty.
    const w = await d.svc(["append", dst, "-F", ""], { stdin: "later\n" });
    expect(w.code, w.stderr).toBe(0);
    expect((await records(dst)).map((x) => x.body.toString()).at(-1)).toBe("later");
  });

  it("--commands replay appends the fence but never the trim", async () => {
    const dst = await d.newStream("dst");
    const r = await pipe(
      ["read", src, "--from-beginning", "-e", "--format", "json-base64"],
      ["append", dst, "--format", "json-base64", "--commands", "replay"],
    );
    expect(r.code, r.stderr).toBe("rc=0");
    expect(r.stderr).toMatch(/skipped 1 command record in the input \(1 trim\).*never replayed/);
    const copy = await records(dst);
    const commands = copy.filter(isCommand);
    expect(commands.map((c) => c.headers[0]![1].toString())).toEqual(["fence"]);
    expect(commands[0]!.body.toString()).toBe("writer-1");
    // Every data record is still there: nothing was trimmed.
    const data = (rs: { headers: [Buffer, Buffer][]; body: Buffer }[]) =>
      rs.filter((x) => !isCommand(x)).map((x) => x.body.toString());
    expect(data(copy)).toEqual(data(await records(src)));
    // The fence took effect on the copy: a wrong token is refused (exit 5).
    const w = await d.svc(["append", dst, "-F", "someone-else"], { stdin: "later\n" });
    expect(w.code).toBe(5);
    expect(w.stderr).toMatch(/current token is "writer-1"/);
  });

  it("a data record with one empty-named header can only be a command record: text input never is one", async () => {
    const dst = await d.newStream("dst");
    const r = await d.svc(["append", dst], { stdin: "plain\n" });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/command record/);
  });
});
