/**
 * The client's refusal of an input because of one of its records (rules/records.ts judges it):
 * a BadRecordError says which record, so a caller that knows where each record came from (svc
 * append: a file and line) names it without judging the input again.
 */
import { clientError, type Fail, SvcError } from "../errors.js";

/** An input refused before it was sent (code `bad_input`) because of the record at `index`. */
export class BadRecordError extends SvcError {
  constructor(
    message: string,
    /** The record's index in the input's `records`. */
    readonly index: number,
    /** What is wrong with it, said of it alone (`record is 1048584 metered bytes; …`). */
    readonly problem: string,
  ) {
    super({ code: "bad_input", message, origin: "client" });
    this.name = "BadRecordError";
  }
}

/** How the client fails an input the rules refuse: `bad_input`, a BadRecordError when one record is at fault. */
export const badInput: Fail = (message, record) =>
  record ? new BadRecordError(message, record.index, record.problem) : clientError("bad_input", message);
