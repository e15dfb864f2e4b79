/**
 * Acks as the CLI prints them: the JSON shape of `--acks ndjson` and `--json`
 * (`{"start":{…},"end":{…},"tail":{…},"records":N}`, where `end` is the position after the
 * last record, as on the wire) and the human status line, whose range names the records
 * appended, both ends included, as every range svc prints (`✓ appended 0..2 (3 records) tail 3 @ …`).
 */
import type { AppendAck, StreamPosition } from "../types.js";
import { formatTime, type TimeFormat } from "./record-time.js";
import { seqRange } from "./seq-range.js";

export function positionToJson(p: StreamPosition): { seq_num: number; timestamp: number } {
  return { seq_num: p.seqNum, timestamp: p.timestamp };
}

export function ackToJson(ack: AppendAck, withCount = true): Record<string, unknown> {
  const out: Record<string, unknown> = {
    start: positionToJson(ack.start),
    end: positionToJson(ack.end),
    tail: positionToJson(ack.tail),
  };
  if (withCount) out.records = ack.end.seqNum - ack.start.seqNum;
  return out;
}

export function ackStatusLine(ack: AppendAck, time: TimeFormat = "iso"): string {
  const n = ack.end.seqNum - ack.start.seqNum;
  return `appended ${seqRange(ack.start.seqNum, ack.end.seqNum - 1)} (${n} record${n === 1 ? "" : "s"}) tail ${ack.tail.seqNum} @ ${formatTime(ack.tail.timestamp, time)}`;
}

/** `fence set to "x" (record 7 @ …) tail 8`: the command record's own position, then the tail. */
export function commandAckLine(what: string, ack: AppendAck, time: TimeFormat = "iso"): string {
  return `${what} (record ${ack.start.seqNum} @ ${formatTime(ack.start.timestamp, time)}) tail ${ack.tail.seqNum}`;
}
