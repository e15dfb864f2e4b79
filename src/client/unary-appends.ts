/**
 * The unary lane of the appender (appender.ts): one unary append at a time, in the order the
 * inputs were sent. The caller's retry policy applies to each request (an append is not
 * idempotent: only failures without side effects are retried). After a failure, or once
 * aborted, no later input is sent: each fails with `not_applied`.
 */
import { SvcError } from "../errors.js";
import type { AppendAck, AppendInput } from "../types.js";

export class UnaryAppends {
  private chain: Promise<unknown> = Promise.resolve();
  private failed = false;
  private aborted = false;

  constructor(private readonly append: (input: AppendInput) => Promise<AppendAck>) {}

  send(input: AppendInput): Promise<AppendAck> {
    const run = this.chain.then(async () => {
      if (this.failed || this.aborted) {
        throw new SvcError({
          code: "not_applied",
          message: "not appended because an earlier input failed",
          origin: "client",
          retryable: true,
          sideEffects: false,
        });
      }
      try {
        return await this.append(input);
      } catch (e) {
        this.failed = true;
        throw e;
      }
    });
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Waits for every input sent to be settled. */
  async close(): Promise<void> {
    await this.chain;
  }

  abort(): void {
    this.aborted = true;
  }
}
