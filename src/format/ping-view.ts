/**
 * `svc ping`'s report (its JSON shape, snake_case as on the wire) and its text lines: who
 * answers, whether tokens are required, whether ours is accepted and what it may do (as far as
 * harmless probes can tell), and round-trip latency.
 */
import type { Dialect } from "../types.js";

export interface PingReport {
  endpoint: { url: string; source: string };
  /** Present when basin-level requests go elsewhere (host routing, another URL). */
  basin_endpoint?: { url: string; source: string };
  server: {
    /** `GET /ping`: its status (200 on svc lite; another server may say 404). */
    ping_status: number;
    /** svc lite names itself in a `svc-lite-version` header on /ping. */
    lite: boolean;
    version: string | null;
    /** The dialect (header names) the server answered in; null when no request could tell. */
    dialect: Dialect | null;
    /** The dialect svc asked in (`--dialect`). */
    dialect_asked: Dialect;
  };
  /** Whether a request without a token was refused; null when that could not be told. */
  auth_required: boolean | null;
  token: {
    configured: boolean;
    source: string | null;
    /** null: not told (the server checks no tokens, or the probe failed otherwise). */
    accepted: boolean | null;
    /** What kind of token: only svc lite's token forms tell (root or issued); null otherwise. */
    kind: "lite-root" | "lite-issued" | null;
  };
  access: AccessProbe[];
  /** What could not be determined, in words. */
  not_probed: string[];
  latency_ms: LatencySummary | null;
}

export interface AccessProbe {
  operation: string;
  resource: string | null;
  /** true: permitted; false: refused (401, 403); null: could not tell (another status). */
  allowed: boolean | null;
  status: number;
  code: string | null;
}

export interface LatencySummary {
  probe: string;
  /** The first request, which included connecting. */
  first: number;
  count: number;
  min: number;
  p50: number;
  max: number;
  samples: number[];
}

const ms = (n: number): string => `${n.toFixed(2)} ms`;
const round = (n: number): number => Math.round(n * 1000) / 1000;

/** min, median (nearest rank) and max of the samples, in ms rounded to µs. */
export function latencySummary(probe: string, first: number, samples: number[]): LatencySummary | null {
  if (samples.length === 0) return null;
  const sorted = [...samples].sort((a, b) => a - b);
  const p50 = sorted[Math.ceil(sorted.length / 2) - 1]!;
  return {
    probe,
    first: round(first),
    count: samples.length,
    min: round(sorted[0]!),
    p50: round(p50),
    max: round(sorted[sorted.length - 1]!),
    samples: samples.map(round),
  };
}

function serverLine(s: PingReport["server"]): string {
  const who = s.lite
    ? `svc lite ${s.version ?? "(no version)"}`
    : `not svc lite (GET /ping: ${s.ping_status}, no svc-lite-version header); version unknown`;
  if (s.dialect === s.dialect_asked) return `${who} · dialect ${s.dialect}`;
  if (s.dialect === null) return `${who} · dialect unknown (asked in ${s.dialect_asked}; no answer told)`;
  return `${who} · dialect ${s.dialect}: it did not understand ${s.dialect_asked}'s header names (use --dialect ${s.dialect})`;
}

function authLine(r: PingReport): string {
  if (r.auth_required === true) return "required: a request without a token was refused";
  if (r.auth_required === false)
    return "not required: this server answered a request without a token (it accepts any token)";
  return "unknown: a request without a token got neither an answer nor a refusal";
}

function tokenLine(r: PingReport): string {
  const t = r.token;
  const from = t.source ? ` (from ${t.source})` : "";
  if (!t.configured) return "none configured";
  if (r.auth_required === false) return `not checked by this server${from}`;
  if (t.accepted === false) return `REJECTED${from}`;
  if (t.accepted === null) return `unknown: the probe did not tell${from}`;
  if (t.kind === "lite-root") return `accepted: svc lite's root token, which may do everything${from}`;
  if (t.kind === "lite-issued")
    return `accepted: an access token issued by this svc lite; what it may do, as probed, below${from}`;
  return `accepted; the protocol has no "who am I", so what it may do is what the probes below show${from}`;
}

function accessLine(p: AccessProbe): string {
  const what = p.resource ? `${p.operation} ${p.resource}` : p.operation;
  if (p.allowed === true) return `✓ ${what}`;
  const why = `${p.status}${p.code ? ` ${p.code}` : ""}`;
  return p.allowed === false ? `✗ ${what} (${why})` : `? ${what}: could not tell (${why})`;
}

/** The report as aligned `label  value` lines. */
export function pingLines(r: PingReport): string[] {
  const rows: [string, string][] = [["endpoint", `${r.endpoint.url} (${r.endpoint.source})`]];
  if (r.basin_endpoint) rows.push(["basins at", `${r.basin_endpoint.url} (${r.basin_endpoint.source})`]);
  rows.push(["server", serverLine(r.server)], ["auth", authLine(r)], ["token", tokenLine(r)]);
  const access = [...r.access.map(accessLine), ...r.not_probed.map((n) => `· ${n}`)];
  access.forEach((a, i) => rows.push([i === 0 ? "access" : "", a]));
  const l = r.latency_ms;
  if (l)
    rows.push([
      "latency",
      `${l.probe} × ${l.count}: min ${ms(l.min)}, p50 ${ms(l.p50)}, max ${ms(l.max)} (the first request, with connecting: ${ms(l.first)})`,
    ]);
  return rows.map(([k, v]) => `${k.padEnd(9)} ${v}`);
}
