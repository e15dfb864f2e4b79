/**
 * The commits of `svc read --consumer NAME` (docs/consumers.md): the position after the last
 * record written out (handed to stdout, -o FILE or --split-dir; `written`) is committed every
 * `--commit-every` and once more at the end (`close`: the end of a bounded read, Ctrl-C,
 * SIGTERM, stdout's reader gone, an error after records were printed). Each commit carries the
 * token installed by the takeover (positions.ts), so a reader that lost the name cannot commit:
 * its commit fails 412 `fencing_token_mismatch`, `lost` aborts the read, and `close` fails with
 * `consumer_taken_over` (exit 5). A reader with nothing new to commit checks the companion's
 * tail each period instead, and when someone else wrote there, commits its position again,
 * which tells it whether it still holds the name: an idle reader that lost it stops too.
 *
 * A killed reader (kill -9, a crash) re-delivers at most what it printed after its last commit.
 * Now and then a commit starts with a trim to just before itself (protocol.md §8.5: the trim
 * point is at most the trim record's own position + 1), so the companion holds a few records.
 */
import { FencingTokenMismatchError, SvcError } from "../../errors.js";
import { seqRange } from "../../format/seq-range.js";
import { trimRecord } from "../../rules/commands.js";
import type { AppendRecord } from "../../types.js";
import { OperationError } from "../failure.js";
import type { Output } from "../output.js";
import { commitRecord, type Ownership, type PositionStore } from "./positions.js";

/** A commit trims the companion stream once it holds this many records more than at the last trim. */
const TRIM_EVERY = 64;

/** With `--commit-every 0`, how often an idle reader checks that it still holds the name. */
const IDLE_CHECK_MS = 1000;

export interface CommitterOptions {
  /** Milliseconds between commits; 0: after every batch written. */
  everyMs: number;
  out: Output;
  /** The stream read, for messages. */
  uri: string;
  reader: string;
}

export class Committer {
  private printed: number;
  private committed: number;
  private expectedTail: number;
  private trimmedTo = 0;
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private failing = false;
  private closing: Promise<void> | undefined;
  private taken = false;
  private readonly stopper = new AbortController();

  constructor(
    private readonly store: PositionStore,
    private readonly own: Ownership,
    private readonly opts: CommitterOptions,
  ) {
    this.printed = own.position;
    this.committed = own.position;
    this.expectedTail = own.tail;
  }

  /** Aborted when another reader (or a reset) took the name over: the read must stop. */
  get lost(): AbortSignal {
    return this.stopper.signal;
  }

  get takenOver(): boolean {
    return this.taken;
  }

  /** Commits every `everyMs` (with 0, after each batch, and checks once a second while idle). */
  start(): void {
    this.timer = setInterval(() => this.kick(), this.opts.everyMs > 0 ? this.opts.everyMs : IDLE_CHECK_MS);
    this.timer.unref();
  }

  /** Records up to `next` (exclusive) were written out. */
  written(next: number): void {
    if (next > this.printed) this.printed = next;
    if (this.opts.everyMs <= 0) this.kick();
  }

  /** The last commit, once: stops the timer, waits for a commit under way, commits what is left. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.finish();
    return this.closing;
  }

  private async finish(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
    if (this.taken) throw this.takenError();
    if (this.printed <= this.committed) return;
    try {
      await this.commit(this.printed);
    } catch (e) {
      if (this.taken) throw this.takenError();
      throw new OperationError(`commit the position of consumer ${this.store.consumer} of`, this.opts.uri, e);
    }
  }

  /** A commit (or a check) unless one is under way, the reader is closing, or it lost the name. */
  private kick(): void {
    if (this.running !== undefined || this.closing !== undefined || this.taken) return;
    this.running = this.step().finally(() => {
      this.running = undefined;
      // After every batch: what was written while this commit was under way is next.
      if (this.opts.everyMs <= 0 && !this.failing && this.printed > this.committed) this.kick();
    });
  }

  private async step(): Promise<void> {
    try {
      if (this.printed > this.committed) await this.commit(this.printed);
      else if ((await this.store.companion.checkTail()).seqNum !== this.expectedTail) await this.commit(this.committed);
      if (this.failing) this.opts.out.info(`consumer ${this.store.consumer}: committing again`);
      this.failing = false;
    } catch (e) {
      if (this.taken) return;
      if (!this.failing)
        this.opts.out.warn(
          `consumer ${this.store.consumer}: could not commit its position (${e instanceof Error ? e.message : String(e)}); trying again, and until then a new reader would resume at ${this.committed}`,
        );
      this.failing = true;
    }
  }

  private async commit(next: number): Promise<void> {
    const { stream, consumer } = this.store;
    const records: AppendRecord[] = [];
    // The commit lands at expectedTail + 1 after the trim (or later, if someone else wrote:
    // the trim then removes less, never the commit).
    const trimTo = this.expectedTail - this.trimmedTo >= TRIM_EVERY ? this.expectedTail + 1 : undefined;
    if (trimTo !== undefined) records.push(trimRecord(trimTo, Date.now()));
    records.push(commitRecord(stream, consumer, next, this.opts.reader));
    let end: number;
    try {
      end = (await this.store.companion.append({ records, fencingToken: this.own.token })).end.seqNum;
    } catch (e) {
      if (e instanceof FencingTokenMismatchError) {
        this.taken = true;
        this.stopper.abort("taken over");
      }
      throw e;
    }
    if (next > this.committed) this.committed = next;
    this.expectedTail = end;
    if (trimTo !== undefined) this.trimmedTo = trimTo;
  }

  /** `consumer_taken_over` (exit 5), saying what this reader printed that the new holder will print again. */
  private takenError(): SvcError {
    const again =
      this.printed > this.committed
        ? `; ${this.printed - this.committed === 1 ? "record" : "records"} ${seqRange(this.committed, this.printed - 1)}, printed after its last commit, will be read again under the name`
        : "";
    const e = new SvcError({
      code: "consumer_taken_over",
      origin: "client",
      message: `consumer ${this.store.consumer} of ${this.opts.uri} was taken over by another reader (or reset), so this reader stopped; its last commit was ${this.committed}${again}`,
    });
    Object.defineProperty(e, "hint", {
      value:
        "at most one reader commits under a name, the last to start; `svc consumer show URI NAME` shows who committed last",
      enumerable: false,
    });
    return e;
  }
}
