/**
 * `--init-file SPEC.json`: the `svc apply` spec, read by the one spec grammar both faces share
 * (rules/spec.ts, docs/specs.md), applied at start with ensure semantics, so a restart is a
 * no-op. The whole file is validated (unknown fields, duplicate names, bad values) before
 * anything is applied. Omitted fields reset to defaults. A `prune` scope is apply's alone: the
 * init file creates and updates, never deletes, so it is refused here.
 */
import { readFileSync } from "node:fs";
import { SvcError } from "../errors.js";
import { type Flat, parseSpec, STREAM_FIELDS, unflatten } from "../rules/spec.js";
import type { StreamCipher } from "../types.js";
import { parseJsonText } from "../wire/json.js";
import { quoted, streamOf } from "./log.js";
import { ensureBasin } from "./store/basins.js";
import type { Store } from "./store/store.js";
import type { BasinReconfig, StreamReconfig } from "./store/stream-config.js";
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

/** A stream config of the spec's fields under `prefix`, every field explicit (null: the default). */
function streamConfig(f: Flat, prefix = ""): StreamReconfig {
  const all: Flat = {};
  for (const k of STREAM_FIELDS) all[k] = f[`${prefix}${k}`] ?? null;
  return unflatten(all) as StreamReconfig;
}

function hasAny(f: Flat, prefix: string): boolean {
  return Object.keys(f).some((k) => k.startsWith(prefix));
}

function parseInitSpec(text: string): BasinPlan[] {
  let doc: unknown;
  try {
    doc = parseJsonText(text);
  } catch (e) {
    throw new Error(`init file: (file): ${(e as Error).message}`);
  }
  let spec: ReturnType<typeof parseSpec>;
  try {
    spec = parseSpec(doc, "(file)");
  } catch (e) {
    throw new Error(`init file: ${(e as SvcError).message.replace(/^\(file\): /, "")}`);
  }
  if (spec.prune)
    throw new Error("init file: prune: the init file creates and updates only; prune with `svc apply --prune`");
  return spec.basins.map((b) => ({
    name: b.name,
    config: {
      default_stream_config: hasAny(b.fields, "default_stream_config.")
        ? streamConfig(b.fields, "default_stream_config.")
        : null,
      create_stream_on_append: (b.fields.create_stream_on_append as boolean | undefined) ?? false,
      create_stream_on_read: (b.fields.create_stream_on_read as boolean | undefined) ?? false,
      stream_cipher: (b.fields.stream_cipher as StreamCipher | undefined) ?? null,
    },
    streams: b.streams.map((s) => ({ name: s.name, config: streamConfig(s.fields) })),
  }));
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
