/**
 * A stream whose stored tail went back: the database no longer holds records a node
 * acknowledged or served (a failover to a standby that lacked them; docs/postgres.md). A read
 * that got past the new tail, or asks to start there, is refused with `stream_tail_went_back`
 * rather than given the records the new primary stores at the same positions.
 */
import { type SvcError, serverError } from "../../errors.js";

/** What a node knows of its stream's loss: its tail went back from `from` to `to`. */
export interface WentBack {
  from: number;
  to: number;
}

/** A read past what the database now holds: its records from `to` on are gone. */
export const wentBack = (from: number, to: number): SvcError =>
  serverError(
    "stream_tail_went_back",
    `the stream's tail went back from ${from} to ${to}: the database no longer holds records this read may have delivered (a failover to a standby that lacked them); read again from ${to} or earlier`,
  );
