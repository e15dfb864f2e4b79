/** What `svc bench` is asked (BenchPlan) and what it reports: throughput, latency, live figures. */
import type { LatencySummary } from "./latency.js";

export const MIB = 1024 * 1024;
/** A batch stays within 1000 records and 1 MiB metered (8 bytes of overhead per record). */
const BATCH_BYTES = MIB;

export interface BenchPlan {
  basin: string;
  stream: string;
  writers: number;
  /** MiB/s across all writers; undefined = as fast as acks allow (--max). */
  targetMiBps: number | undefined;
  recordSize: number;
  batchRecords: number | undefined;
  durationMs: number;
  catchupDelayMs: number;
  catchup: boolean;
}

export interface Throughput {
  records: number;
  bytes: number;
  seconds: number;
  mib_s: number;
  records_per_s: number;
}

export interface BenchResult {
  write: Throughput;
  ack_latency: LatencySummary;
  live_read: Throughput;
  e2e_latency: LatencySummary;
  catchup: Throughput | null;
  verified: boolean;
  failure: string | null;
  interrupted: boolean;
}

/** Live figures for a progress line. */
export interface BenchLive {
  phase: "write" | "drain" | "catchup-wait" | "catchup";
  elapsedMs: number;
  /** In `catchup-wait`: the time left before the catch-up read starts. */
  catchupInMs?: number;
  acked: number;
  ackedBytes: number;
  read: number;
}

export function throughput(records: number, bytes: number, ms: number): Throughput {
  const seconds = Math.max(ms, 1) / 1000;
  return {
    records,
    bytes,
    seconds: Math.round(seconds * 1000) / 1000,
    mib_s: Math.round((bytes / MIB / seconds) * 100) / 100,
    records_per_s: Math.round(records / seconds),
  };
}

export function defaultBatchRecords(recordSize: number): number {
  return Math.max(1, Math.min(1000, Math.floor(BATCH_BYTES / (recordSize + 8))));
}
