/**
 * `--init-file SPEC.json`: the `svc apply` spec (docs/design/cli.md, "Apply, diff and the init
 * file"), applied at start with ensure semantics, so a restart is a no-op. The whole file is
 * validated (unknown fields, duplicate names, bad values) before anything is applied. Omitted
 * fields reset to defaults.
 *
 *   {"basins": [{"name", "config": {"default_stream_config": StreamSpec,
 *     "create_stream_on_append", "create_stream_on_read"}, "streams": [{"name", "config": StreamSpec}]}]}
 *   StreamSpec: {"storage_class", "retention_policy": "infinite" | "7days",
 *     "timestamping": {"mode", "uncapped"}, "delete_on_empty": {"min_age": "1day"}}
 */
import { readFileSync } from "node:fs";
import { SvcError } from "../errors.js";
import { parseJsonText } from "../wire/json.js";
import { ConfigParse, isObject, parseStreamReconfig } from "./http/config-json.js";
import { badName } from "../rules/names.js";
import { durationSecs } from "../rules/durations.js";
import { quoted, streamOf } from "./log.js";
import { ensureBasin } from "./store/basins.js";
import type { BasinReconfig, StreamReconfig } from "./store/stream-config.js";
import type { Store } from "./store/store.js";
import { ensureStream } from "./store/streams.js";

interface StreamPlan {
  name: string;
  config: StreamReconfig;
}
interface BasinPlan {
  name: string;
  config: BasinReconfig;
  streams: StreamPlan[];
}

function bad(path: string, message: string): never {
  throw new Error(`init file: ${path}: ${message}`);
}

function onlyKeys(o: Record<string, unknown>, allowed: string[], path: string): void {
  for (const k of Object.keys(o)) if (!allowed.includes(k)) bad(path, `unknown field ${JSON.stringify(k)}`);
}

/** Spec stream config → API JSON shape, then the API parser. Every field is explicit. */
function streamConfig(v: unknown, path: string): StreamReconfig {
  if (v === undefined || v === null) v = {};
  if (!isObject(v)) bad(path, "must be an object");
  onlyKeys(v, ["storage_class", "retention_policy", "timestamping", "delete_on_empty"], path);
  const api: Record<string, unknown> = {
    storage_class: v.storage_class ?? null,
    timestamping: null,
    delete_on_empty: null,
    retention_policy: null,
  };
  const rp = v.retention_policy;
  if (rp === "infinite") api.retention_policy = { infinite: {} };
  else if (typeof rp === "string") {
    const secs = durationSecs(rp);
    if (!secs)
      bad(
        `${path}.retention_policy`,
        `"infinite" or a positive duration such as "7days" expected, got ${JSON.stringify(rp)}`,
      );
    api.retention_policy = { age: secs };
  } else if (rp !== undefined && rp !== null) api.retention_policy = rp;
  if (isObject(v.timestamping)) {
    onlyKeys(v.timestamping, ["mode", "uncapped"], `${path}.timestamping`);
    api.timestamping = { mode: v.timestamping.mode ?? null, uncapped: v.timestamping.uncapped ?? null };
  } else if (v.timestamping !== undefined && v.timestamping !== null) bad(`${path}.timestamping`, "must be an object");
  if (isObject(v.delete_on_empty)) {
    onlyKeys(v.delete_on_empty, ["min_age", "min_age_secs"], `${path}.delete_on_empty`);
    const raw = v.delete_on_empty.min_age ?? v.delete_on_empty.min_age_secs ?? null;
    const secs = typeof raw === "string" ? durationSecs(raw) : raw;
    if (secs === undefined) bad(`${path}.delete_on_empty.min_age`, `a duration expected, got ${JSON.stringify(raw)}`);
    api.delete_on_empty = { min_age_secs: secs };
  } else if (v.delete_on_empty !== undefined && v.delete_on_empty !== null)
    bad(`${path}.delete_on_empty`, "must be an object");
  const p: ConfigParse = new ConfigParse();
  try {
    const r = parseStreamReconfig(p, api, path);
    p.finish();
    return {
      storage_class: null,
      retention_policy: null,
      ...r,
      timestamping: r.timestamping ?? { mode: null, uncapped: null },
      delete_on_empty: r.delete_on_empty ?? { min_age_secs: null },
    };
  } catch (e) {
    return bad(path, (e as SvcError).message);
  }
}

function parseInitSpec(text: string): BasinPlan[] {
  let spec: unknown;
  try {
    spec = parseJsonText(text);
  } catch (e) {
    return bad("(file)", (e as Error).message);
  }
  if (!isObject(spec)) bad("(file)", "must be a JSON object");
  onlyKeys(spec, ["$schema", "basins"], "(file)");
  const basins = spec.basins ?? [];
  if (!Array.isArray(basins)) bad("basins", "must be an array");
  const seen = new Set<string>();
  return basins.map((b: unknown, i: number): BasinPlan => {
    const path = `basins[${i}]`;
    if (!isObject(b)) bad(path, "must be an object");
    onlyKeys(b, ["name", "config", "streams"], path);
    if (typeof b.name !== "string") bad(`${path}.name`, "must be a string");
    const basinProblem = badName("basin", b.name);
    if (basinProblem) bad(`${path}.name`, basinProblem);
    if (seen.has(b.name)) bad(`${path}.name`, `duplicate basin ${b.name}`);
    seen.add(b.name);
    const c = b.config ?? {};
    if (!isObject(c)) bad(`${path}.config`, "must be an object");
    onlyKeys(
      c,
      ["default_stream_config", "stream_cipher", "create_stream_on_append", "create_stream_on_read"],
      `${path}.config`,
    );
    if (c.stream_cipher !== undefined && c.stream_cipher !== null)
      bad(`${path}.config.stream_cipher`, "stream encryption is not supported by svc lite");
    for (const f of ["create_stream_on_append", "create_stream_on_read"] as const) {
      if (c[f] !== undefined && c[f] !== null && typeof c[f] !== "boolean")
        bad(`${path}.config.${f}`, "must be a boolean");
    }
    const streams = b.streams ?? [];
    if (!Array.isArray(streams)) bad(`${path}.streams`, "must be an array");
    const names = new Set<string>();
    return {
      name: b.name,
      config: {
        default_stream_config:
          c.default_stream_config === undefined || c.default_stream_config === null
            ? null
            : streamConfig(c.default_stream_config, `${path}.config.default_stream_config`),
        create_stream_on_append: (c.create_stream_on_append as boolean | undefined) ?? false,
        create_stream_on_read: (c.create_stream_on_read as boolean | undefined) ?? false,
      },
      streams: streams.map((s: unknown, j: number): StreamPlan => {
        const sp = `${path}.streams[${j}]`;
        if (!isObject(s)) bad(sp, "must be an object");
        onlyKeys(s, ["name", "config"], sp);
        if (typeof s.name !== "string") bad(`${sp}.name`, "must be a string");
        const streamProblem = badName("stream", s.name);
        if (streamProblem) bad(`${sp}.name`, streamProblem);
        if (names.has(s.name)) bad(`${sp}.name`, `duplicate stream ${s.name}`);
        names.add(s.name);
        return { name: s.name, config: streamConfig(s.config, `${sp}.config`) };
      }),
    };
  });
}

/** The init file is the operator's, applied by the server itself: it may create and reconfigure anything. */
const SERVER_ITSELF = { require: (): void => undefined };

/** Applies a spec file; returns one line per resource for the log. */
export async function applyInitFile(store: Store, file: string): Promise<string[]> {
  const plans = parseInitSpec(readFileSync(file, "utf8"));
  const lines: string[] = [];
  for (const b of plans) {
    // Every field of the plan is explicit (a value, or null to reset), so the merge of
    // ensureBasin/ensureStream amounts to replacing the config: ensure semantics.
    const r = await ensureBasin(store, b.name, b.config, SERVER_ITSELF);
    lines.push(`basin ${quoted(b.name)}: ${describe(r.result)}`);
    for (const s of b.streams) {
      const rs = await ensureStream(store, b.name, s.name, s.config, SERVER_ITSELF);
      lines.push(`stream ${streamOf(b.name, s.name)}: ${describe(rs.result)}`);
    }
  }
  return lines;
}

function describe(result: "created" | "updated" | "noop"): string {
  return result === "created" ? "created" : result === "updated" ? "config updated" : "config unchanged";
}
