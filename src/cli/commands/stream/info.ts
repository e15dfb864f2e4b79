/**
 * `svc stream info <uri>` (like `nats stream info`, `rpk topic describe`): config, creation
 * time, cipher, tail, the first readable record and stored bytes in one view (`--json` too),
 * from what the protocol offers: get-stream-config, the stream's list-streams entry,
 * check-tail, a read from 0 (clamped, one record) and the stream's `storage` metric. A part
 * that is not permitted or not offered shows as unknown, with the server's answer; the command
 * fails only when the stream does not exist or nothing at all could be had.
 */
import { Command } from "commander";
import type { SvcClient } from "../../../client/client.js";
import { RangeNotSatisfiableError, SvcError } from "../../../errors.js";
import { type StreamInfoReport, streamInfoLines } from "../../../format/stream-info-view.js";
import type { Metric } from "../../../metric-types.js";
import { handler } from "../../action.js";
import { attempt } from "../../failure.js";
import { examples } from "../../help.js";
import { formatUri, parseStreamUri } from "../../uri.js";

/** How far back the storage metric is asked for (its latest point is shown). */
const STORAGE_WINDOW_SECS = 3600;

function reason(e: unknown): string {
  if (e instanceof SvcError) return e.status === undefined ? e.code : `${e.status} ${e.code}`;
  return e instanceof Error ? e.message : String(e);
}

/** The latest point of the `storage` gauge, or undefined when there is none. */
function latestStorage(values: Metric[]): { bytes: number; at: number } | undefined {
  let best: [number, number] | undefined;
  for (const m of values) {
    const points = "gauge" in m ? m.gauge.values : "accumulation" in m ? m.accumulation.values : [];
    for (const p of points) if (!best || p[0] >= best[0]) best = p;
  }
  return best ? { bytes: best[1], at: best[0] } : undefined;
}

async function gather(client: SvcClient, basin: string, stream: string): Promise<StreamInfoReport> {
  const b = client.basin(basin);
  const sc = b.stream(stream);
  const now = Math.floor(Date.now() / 1000);
  const [config, entry, tail, first, metrics] = await Promise.allSettled([
    b.streams.getConfig(stream),
    b.streams.list({ prefix: stream, limit: 1 }).then((p) => p.items.find((s) => s.name === stream)),
    sc.checkTail(),
    sc.readBatch({ seqNum: 0 }, { count: 1, wait: 0, clamp: true }),
    client.metrics.streamMetrics(basin, stream, { set: "storage", start: now - STORAGE_WINDOW_SECS, end: now }),
  ]);
  const parts = [config, entry, tail, first, metrics];
  const missing = parts.find(
    (p) =>
      p.status === "rejected" &&
      p.reason instanceof SvcError &&
      (p.reason.code === "stream_not_found" || p.reason.code === "basin_not_found"),
  );
  if (missing?.status === "rejected") throw missing.reason;
  if (parts.every((p) => p.status === "rejected")) throw (config as PromiseRejectedResult).reason;
  for (const p of parts)
    if (p.status === "rejected" && !(p.reason instanceof SvcError && p.reason.status !== undefined)) throw p.reason;

  const r: StreamInfoReport = {
    uri: formatUri(basin, stream),
    basin,
    stream,
    created_at: null,
    deleted_at: null,
    cipher: null,
    config: null,
    tail: null,
    tail_went_back: null,
    first: null,
    stored_bytes: null,
    unknown: {},
  };
  if (config.status === "fulfilled") r.config = config.value as Record<string, unknown>;
  else r.unknown.config = reason(config.reason);
  if (entry.status === "rejected") r.unknown.created_at = reason(entry.reason);
  else if (entry.value === undefined) r.unknown.created_at = "not in list-streams";
  else {
    const info = entry.value as { created_at?: string; deleted_at?: string | null; cipher?: string | null };
    r.created_at = info.created_at ?? null;
    r.deleted_at = info.deleted_at ?? null;
    r.cipher = info.cipher ?? null;
  }
  if (tail.status === "fulfilled") {
    r.tail = { seq_num: tail.value.seqNum, timestamp: tail.value.timestamp };
    r.tail_went_back = tail.value.wentBack ?? null;
  } else r.unknown.tail = reason(tail.reason);
  if (first.status === "fulfilled") {
    const rec = first.value.records[0];
    if (rec) r.first = { seq_num: rec.seqNum, timestamp: rec.timestamp };
  } else if (!(first.reason instanceof RangeNotSatisfiableError)) r.unknown.first = reason(first.reason);
  if (metrics.status === "rejected") r.unknown.stored_bytes = reason(metrics.reason);
  else {
    const latest = latestStorage(metrics.value.values);
    if (latest) r.stored_bytes = latest;
    else r.unknown.stored_bytes = "no storage metric in the last hour";
  }
  return r;
}

export function streamInfoCommand(name = "info"): Command {
  const cmd = new Command(name)
    .description("Show a stream in one view: config, created, cipher, tail, first readable record, stored bytes")
    .argument("<uri>", "svc://basin/stream");
  cmd.action(
    handler(async (ctx, [arg]) => {
      const { basin, stream } = parseStreamUri(arg!);
      const client = await ctx.client();
      const report = await attempt("get info of", formatUri(basin, stream), () => gather(client, basin, stream));
      if (ctx.flags.json) return ctx.out.jsonDoc(report);
      for (const l of streamInfoLines(report)) await ctx.out.line(l);
    }),
  );
  return examples(cmd, [
    "svc stream info svc://my-basin-01/events",
    "svc stream info svc://my-basin-01/events --json | jq .tail.seq_num",
  ]);
}
