/**
 * What `svc consumer list` and `show` print of a consumer: its position, when and by whom it
 * was committed, the stream's tail and the lag between them (JSON, and text).
 */
import type { BasinClient } from "../../client/client.js";
import { SvcError } from "../../errors.js";
import { formatIso } from "../../format/record-time.js";
import { formatUri } from "../uri.js";
import type { Commit } from "./positions.js";

export interface ConsumerReport {
  uri: string;
  basin: string;
  stream: string;
  consumer: string;
  /** The position: the next sequence number the consumer reads. */
  next_seq_num: number;
  /** When the position was committed: the commit record's timestamp (ms). */
  committed_at: number;
  /** Who committed it: `host:pid` of the reader, or `reset by host:pid`. */
  committed_by: string;
  /** The stream's tail; null when the stream no longer exists. */
  tail: number | null;
  /** Records between the position and the tail; null when the tail is unknown. */
  lag: number | null;
}

/** The stream's tail, or null when it is gone; other failures are the caller's. */
export async function tailOf(b: BasinClient, stream: string): Promise<number | null> {
  try {
    return (await b.stream(stream).checkTail()).seqNum;
  } catch (e) {
    if (e instanceof SvcError && e.code === "stream_not_found") return null;
    throw e;
  }
}

export function consumerReport(
  basin: string,
  stream: string,
  consumer: string,
  commit: Commit,
  tail: number | null,
): ConsumerReport {
  return {
    uri: formatUri(basin, stream),
    basin,
    stream,
    consumer,
    next_seq_num: commit.next,
    committed_at: commit.timestamp,
    committed_by: commit.reader,
    tail,
    lag: tail === null ? null : Math.max(0, tail - commit.next),
  };
}

function lagText(r: ConsumerReport): string {
  if (r.lag === null) return "unknown (the stream does not exist)";
  return `${r.lag} ${r.lag === 1 ? "record" : "records"}`;
}

/** `svc consumer show`: one `key  value` line each. */
export function consumerLines(r: ConsumerReport): string[] {
  const rows: [string, string][] = [
    ["consumer", r.consumer],
    ["stream", r.uri],
    ["position", `${r.next_seq_num} (the next sequence number it reads)`],
    ["committed", `${formatIso(r.committed_at)}${r.committed_by !== "" ? ` by ${r.committed_by}` : ""}`],
    ["tail", r.tail === null ? "unknown (the stream does not exist)" : String(r.tail)],
    ["lag", lagText(r)],
  ];
  return rows.map(([k, v]) => `${k.padEnd(9)}  ${v}`);
}

/** `svc consumer list`: a table with a header, columns padded to their widest cell. */
export function consumerTable(reports: ConsumerReport[]): string[] {
  const rows = [
    ["STREAM", "CONSUMER", "POSITION", "LAG", "COMMITTED"],
    ...reports.map((r) => [
      r.uri,
      r.consumer,
      String(r.next_seq_num),
      r.lag === null ? "-" : String(r.lag),
      formatIso(r.committed_at),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd(),
  );
}
