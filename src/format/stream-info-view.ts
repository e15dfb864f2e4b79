/**
 * `svc stream info`: one stream in one view (its JSON shape, and text lines). Each part comes
 * from one request of the protocol; a part that could not be had is null, with the reason in
 * `unknown` (e.g. `"stored_bytes": "403 permission_denied"`), never a guess.
 */
import { configLines } from "./config-view.js";
import { formatIso } from "./record-time.js";
import { humanBytes } from "./units.js";

export interface Position {
  seq_num: number;
  timestamp: number;
}

export interface StreamInfoReport {
  uri: string;
  basin: string;
  stream: string;
  /** list-streams (the stream's own entry). */
  created_at: string | null;
  deleted_at: string | null;
  cipher: string | null;
  /** get-stream-config. */
  config: Record<string, unknown> | null;
  /** check-tail: the next sequence number and the last record's timestamp (0 when empty). */
  tail: Position | null;
  /**
   * svc lite on PostgreSQL: the stream's stored tail was found below what a node had
   * acknowledged (a failover to a standby that lacked records): the records from `to` up to
   * `from` were lost. null when the server reports none.
   */
  tail_went_back: { from: number; to: number } | null;
  /** A read from 0 (clamped, one record): the first record still readable; null when none. */
  first: Position | null;
  /** Stream metrics, set `storage`: the latest point. */
  stored_bytes: { bytes: number; at: number } | null;
  unknown: Record<string, string>;
}

const when = (ms: number): string => `${ms} (${formatIso(ms)})`;

function tailLine(r: StreamInfoReport): string {
  if (!r.tail) return `unknown (${r.unknown.tail})`;
  if (r.tail.seq_num === 0) return "0: empty, never written";
  return `${r.tail.seq_num} (the next sequence number); the last record @ ${when(r.tail.timestamp)}`;
}

function firstLine(r: StreamInfoReport): string {
  if (r.first) return `${r.first.seq_num} @ ${when(r.first.timestamp)}`;
  if (r.unknown.first !== undefined) return `unknown (${r.unknown.first})`;
  return "none: no record is readable";
}

function storedLine(r: StreamInfoReport): string {
  if (!r.stored_bytes) return `unknown (${r.unknown.stored_bytes})`;
  return `${humanBytes(r.stored_bytes.bytes)} (${r.stored_bytes.bytes} bytes, storage metric at ${formatIso(r.stored_bytes.at * 1000)})`;
}

function cipherLine(r: StreamInfoReport): string {
  if (r.unknown.created_at !== undefined) return `unknown (${r.unknown.created_at})`;
  return r.cipher ?? "none (not encrypted)";
}

export function streamInfoLines(r: StreamInfoReport): string[] {
  const known = r.unknown.created_at === undefined;
  const rows: [string, string][] = [
    ["stream", r.uri],
    ["created", known ? (r.created_at ?? "-") : `unknown (${r.unknown.created_at})`],
  ];
  if (r.deleted_at) rows.push(["deleting", `since ${r.deleted_at}`]);
  rows.push(["cipher", cipherLine(r)], ["tail", tailLine(r)]);
  if (r.tail_went_back) {
    const { from, to } = r.tail_went_back;
    rows.push([
      "LOST",
      `the tail went back from ${from} to ${to}: ${from - to} acknowledged record(s) (${to}..${from - 1}) are gone (a failover to a standby that lacked them); what is at those positions now was appended after`,
    ]);
  }
  rows.push(["first", firstLine(r)], ["stored", storedLine(r)]);
  const out = rows.map(([k, v]) => `${k.padEnd(8)}  ${v}`);
  if (!r.config) out.push(`config    unknown (${r.unknown.config})`);
  else out.push("config", ...configLines(r.config).map((l) => `  ${l}`));
  return out;
}
