/**
 * Shared set-up for the data-command e2e tests (cli-data-*.e2e.test.ts): a lite on port 0, one
 * basin, fresh streams, `svc` runs with string output (runSvc) or exact bytes and live control
 * (spawnSvc, for signals and pipes).
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { join } from "node:path";
import { expect } from "vitest";
import { type RunOptions, runSvc, SVC_BIN, tempHome } from "../helpers/cli.js";
import { startLite } from "../helpers/lite.js";

export type Lite = Awaited<ReturnType<typeof startLite>>;

export interface DataEnv {
  lite: Lite;
  env: Record<string, string>;
  basin: string;
  svc: (args: string[], opts?: RunOptions) => ReturnType<typeof runSvc>;
  spawnSvc: (args: string[]) => ChildProcessWithoutNullStreams;
  newStream: (prefix?: string) => Promise<string>;
  stop: () => Promise<void>;
}

/** `liteEnv`: lite's own settings (e.g. a short sweep period, so trims are carried out soon). */
export async function dataEnv(liteEnv: Record<string, string> = {}): Promise<DataEnv> {
  const lite = await startLite({ env: liteEnv });
  const env = { SVC_ACCOUNT_ENDPOINT: lite.url, SVC_BASIN_ENDPOINT: lite.url, SVC_ACCESS_TOKEN: lite.token };
  const home = tempHome();
  const svc = (args: string[], opts: RunOptions = {}) =>
    runSvc(args, { home, timeoutMs: 60_000, ...opts, env: { ...env, ...opts.env } });
  const basin = `data-${process.pid}-${Date.now().toString(36)}`;
  let n = 0; // streams are numbered per environment: many-0 … many-24 for the first 25
  const b = await svc(["basin", "create", basin]);
  expect(b.code, b.stderr).toBe(0);
  return {
    lite,
    env,
    basin,
    svc,
    spawnSvc: (args) =>
      spawn(process.execPath, [SVC_BIN, ...args], {
        env: {
          PATH: process.env.PATH ?? "",
          HOME: home,
          XDG_CONFIG_HOME: join(home, ".config"),
          XDG_DATA_HOME: join(home, ".local", "share"),
          FORCE_COLOR: "0",
          ...env,
        },
        stdio: ["pipe", "pipe", "pipe"],
      }),
    newStream: async (prefix = "s") => {
      const uri = `svc://${basin}/${prefix}-${n++}`;
      const c = await svc(["stream", "create", uri]);
      expect(c.code, c.stderr).toBe(0);
      return uri;
    },
    stop: async () => {
      await lite.stop();
    },
  };
}

/** `read --format json-base64` output → records with decoded bytes. */
export function decodeJsonBase64(
  stdout: string,
): { seq_num: number; timestamp: number; headers: [Buffer, Buffer][]; body: Buffer }[] {
  return stdout
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => {
      const o = JSON.parse(l) as { seq_num: number; timestamp: number; headers: [string, string][]; body: string };
      return {
        seq_num: o.seq_num,
        timestamp: o.timestamp,
        headers: o.headers.map(([k, v]) => [Buffer.from(k, "base64"), Buffer.from(v, "base64")]),
        body: Buffer.from(o.body, "base64"),
      };
    });
}
