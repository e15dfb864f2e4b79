/**
 * Prometheus `GET /metrics` of svc lite: the text exposition format (version 0.0.4).
 * - Of every node, summed by the storage (the same on any node): appended and read records
 *   and bytes since metrics were first kept, and the stored bytes now.
 * - Of this node's process, since it started: requests and their latencies by operation and
 *   status, open sessions, and how long writes waited for their sync to disk.
 */
import type { Totals } from "./recorder.js";

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

class Histogram {
  readonly counts = new Array<number>(LATENCY_BUCKETS.length).fill(0);
  count = 0;
  sum = 0;
  observe(seconds: number): void {
    this.count++;
    this.sum += seconds;
    for (let i = 0; i < LATENCY_BUCKETS.length; i++) if (seconds <= LATENCY_BUCKETS[i]!) this.counts[i]!++;
  }
}

function labels(pairs: Record<string, string>): string {
  const inner = Object.entries(pairs)
    .map(([k, v]) => `${k}="${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`)
    .join(",");
  return inner === "" ? "" : `{${inner}}`;
}

function histogramLines(name: string, base: Record<string, string>, h: Histogram): string[] {
  const out = LATENCY_BUCKETS.map((le, i) => `${name}_bucket${labels({ ...base, le: String(le) })} ${h.counts[i]}`);
  out.push(
    `${name}_bucket${labels({ ...base, le: "+Inf" })} ${h.count}`,
    `${name}_sum${labels(base)} ${h.sum}`,
    `${name}_count${labels(base)} ${h.count}`,
  );
  return out;
}

export class ServerStats {
  private readonly requests = new Map<string, { operation: string; status: string; h: Histogram }>();
  private readonly sync = new Histogram();
  private readonly sessions = new Map<string, number>();
  /** Streams found with a stored tail below what this node knew, and the records so lost. */
  private readonly wentBack = { times: 0, records: 0 };

  /** A stream's stored tail went back by `records` (store.ts onWentBack). */
  tailWentBack(records: number): void {
    this.wentBack.times++;
    this.wentBack.records += records;
  }
  /** On PostgreSQL: the database's clock as this node reads it (pg/db-clock.ts). */
  clock: { offsetMs(): number; uncertaintyMs(): number } | undefined;

  request(operation: string, status: number, seconds: number): void {
    const key = `${operation} ${status}`;
    let e = this.requests.get(key);
    if (!e) this.requests.set(key, (e = { operation, status: String(status), h: new Histogram() }));
    e.h.observe(seconds);
  }

  synced(seconds: number): void {
    this.sync.observe(seconds);
  }

  /** +1 when a session opens, -1 when it ends; `kind` is append, read or sse. */
  session(kind: string, delta: number): void {
    this.sessions.set(kind, (this.sessions.get(kind) ?? 0) + delta);
  }

  render(totals: Totals, storedBytes: number): string {
    const lines: string[] = [];
    const family = (name: string, type: string, help: string, body: string[]): void => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...body);
    };
    const reqs = [...this.requests.values()].sort((a, b) => (a.operation + a.status < b.operation + b.status ? -1 : 1));
    family(
      "svc_lite_requests_total",
      "counter",
      "API requests this node served since it started, by operation and status.",
      reqs.map((e) => `svc_lite_requests_total${labels({ operation: e.operation, status: e.status })} ${e.h.count}`),
    );
    family(
      "svc_lite_request_duration_seconds",
      "histogram",
      "API request latency by operation and status (to the end of the handler).",
      reqs.flatMap((e) =>
        histogramLines("svc_lite_request_duration_seconds", { operation: e.operation, status: e.status }, e.h),
      ),
    );
    family(
      "svc_lite_appended_records_total",
      "counter",
      "Records appended (durable), by every node since metrics were first kept.",
      [`svc_lite_appended_records_total ${totals.appendedRecords}`],
    );
    family(
      "svc_lite_appended_bytes_total",
      "counter",
      "Metered bytes appended (durable), by every node since metrics were first kept.",
      [`svc_lite_appended_bytes_total ${totals.appendedBytes}`],
    );
    family(
      "svc_lite_read_records_total",
      "counter",
      "Records served to readers, by every node since metrics were first kept.",
      [`svc_lite_read_records_total ${totals.readRecords}`],
    );
    family(
      "svc_lite_read_bytes_total",
      "counter",
      "Metered bytes served to readers, by every node since metrics were first kept.",
      [`svc_lite_read_bytes_total ${totals.readBytes}`],
    );
    family(
      "svc_lite_open_sessions",
      "gauge",
      "Open append, read and SSE sessions.",
      ["append", "read", "sse"].map((k) => `svc_lite_open_sessions${labels({ kind: k })} ${this.sessions.get(k) ?? 0}`),
    );
    family("svc_lite_storage_bytes", "gauge", "Metered bytes of all stored records.", [
      `svc_lite_storage_bytes ${storedBytes}`,
    ]);
    family(
      "svc_lite_sync_duration_seconds",
      "histogram",
      "Time each durable write waited for its sync to disk.",
      histogramLines("svc_lite_sync_duration_seconds", {}, this.sync),
    );
    family(
      "svc_lite_stream_tail_regressions_total",
      "counter",
      "Times this node found a stream's stored tail below what it had acknowledged or served (a failover lost records).",
      [`svc_lite_stream_tail_regressions_total ${this.wentBack.times}`],
    );
    family(
      "svc_lite_acknowledged_records_lost_total",
      "counter",
      "Records this node acknowledged or served that the database no longer holds, as those regressions counted them.",
      [`svc_lite_acknowledged_records_lost_total ${this.wentBack.records}`],
    );
    if (this.clock) {
      family(
        "svc_lite_db_clock_offset_seconds",
        "gauge",
        "How far this node's wall clock is ahead of the database's (negative: behind); lite uses the database's.",
        [`svc_lite_db_clock_offset_seconds ${this.clock.offsetMs() / 1000}`],
      );
      const u = this.clock.uncertaintyMs();
      family(
        "svc_lite_db_clock_uncertainty_seconds",
        "gauge",
        "How far off this node's reading of the database's clock may be; above 1 the sweep judges no ages.",
        [`svc_lite_db_clock_uncertainty_seconds ${Number.isFinite(u) ? u / 1000 : "+Inf"}`],
      );
    }
    return `${lines.join("\n")}\n`;
  }
}
