/**
 * One request on a stream's records (append, read, check-tail; unary or a session): who asks
 * and what it may do (the request's access decision), which stream, with which key. Made once
 * per request, it applies them the same way for every form: the stream is looked up
 * (auto-created only for a request that would be served: the key its cipher needs is there,
 * the commands it appends are allowed), an append is checked against the token again, its
 * commands allowed once by the decision and its records sealed, a read gets its records
 * opened, and a read that waits watches its token (§9.5: revoked or expired, it ends with 401
 * within RECHECK_MS).
 */

import { commandOp } from "../../rules/commands.js";
import type { AppendInput } from "../../types.js";
import type { Access } from "../auth/decision.js";
import { type EitherKind, pending } from "../storage/answers.js";
import { type Chain, type LiveStream, refused, type Submitted } from "../store/live-stream.js";
import { ReadFeed } from "../store/read-feed.js";
import type { ReadPlan } from "../store/read-plan.js";
import type { AutoCreate } from "../store/store.js";
import type { RequestContext } from "./context.js";
import { admitNew, PLAIN, type StreamCrypto, streamCrypto } from "./encryption.js";
import type { Exchange } from "./exchange.js";
import { checkStreamName, requestBasin } from "./params.js";

/** §9.2: an append carrying fence or trim command records also needs `fence` / `trim`. */
function requireCommands(access: Access, input: AppendInput): void {
  for (const r of input.records) {
    const op = commandOp(r);
    if (op !== undefined) access.require(op);
  }
}

/** How often a waiting read (a session, or a unary long-poll) checks its token again. */
const RECHECK_MS = 1000;

/** The basin and stream a records request names (the stream with an auto-prefix token's prefix). */
function streamTarget(ex: Exchange, ctx: RequestContext): { basin: string; stream: string } {
  return { basin: requestBasin(ex), stream: checkStreamName(ctx.params[0]!, "bad_path") };
}

export class StreamAccess {
  private constructor(
    readonly stream: LiveStream,
    private readonly crypto: StreamCrypto,
    private readonly ctx: RequestContext,
    /** A unary append's input, its commands allowed before the stream was looked up. */
    private allowed: AppendInput | undefined,
  ) {}

  /**
   * Looks the stream up for the request; `first` (a unary append's input) has its commands
   * allowed first, so a refused one creates no stream.
   * `records: false` (check-tail) touches no record, so it needs no key.
   */
  static async open(
    ex: Exchange,
    ctx: RequestContext,
    autoCreate: AutoCreate,
    opts: { first?: AppendInput; records?: boolean } = {},
  ): Promise<StreamAccess> {
    const names = streamTarget(ex, ctx);
    if (opts.first) requireCommands(ctx.access, opts.first);
    const records = opts.records ?? true;
    const mayCreate = (): void => ctx.access.require("create-stream");
    const stream = await ctx.store.stream(names.basin, names.stream, autoCreate, admitNew(ex, mayCreate, records));
    return new StreamAccess(stream, records ? await streamCrypto(ex, stream) : PLAIN, ctx, opts.first);
  }

  /** The token, checked again (a value at once when it is known here). */
  recheck(): EitherKind<void> {
    return this.ctx.auth.recheck(this.ctx.access.principal);
  }

  /**
   * An append as the requester, one of `chain` (a session's) when given: the token checked
   * again, its commands allowed (by the request's decision), its records sealed, then handed
   * to the stream.
   */
  submit(input: AppendInput, chain?: Chain): EitherKind<Submitted> {
    let checked: EitherKind<void>;
    try {
      checked = this.recheck();
    } catch (e) {
      return this.refuse(e, chain);
    }
    return pending(checked)
      ? checked.then(
          () => this.sealed(input, chain),
          (e: unknown) => this.refuse(e, chain),
        )
      : this.sealed(input, chain);
  }

  private sealed(input: AppendInput, chain: Chain | undefined): Submitted {
    if (input === this.allowed) this.allowed = undefined;
    else {
      try {
        requireCommands(this.ctx.access, input);
      } catch (e) {
        return this.refuse(e, chain);
      }
    }
    return this.stream.submit(this.crypto.seal(input), chain);
  }

  /** Refused before the stream saw it: answered once everything before it has settled. */
  private refuse(e: unknown, chain: Chain | undefined): Submitted {
    return refused(this.stream, e, chain);
  }

  /**
   * The request's read (store/read-feed.ts), its records opened: 416 here, before any answer.
   * The token is checked again before every catch-up batch, judged at once before every live
   * one (a check that would need I/O sends the read through the full check first), and watched
   * while the read waits: revoked or expired, the read fails with 401 within RECHECK_MS.
   */
  async feed(plan: ReadPlan): Promise<ReadFeed> {
    const watch = this.watchToken();
    try {
      return await ReadFeed.open(this.stream, plan, {
        open: this.crypto.open,
        check: () => this.recheck(),
        checkNow: () => this.checkNow(),
        signal: watch.signal,
        onClose: watch.stop,
      });
    } catch (e) {
      watch.stop();
      throw e;
    }
  }

  /** The tokens' change count when the token was last found to hold (-1: not yet). */
  private heldAt = -1;

  /**
   * Whether the token holds, when that is known without I/O (else false: the full check runs
   * first). Before every live batch: nothing is looked up while no token changed since the last
   * check and this one has not expired (a revocation through any node counts as a change).
   */
  private checkNow(): boolean {
    const auth = this.ctx.auth;
    const principal = this.ctx.access.principal;
    if (auth.unchangedSince(principal, this.heldAt)) return true;
    const changes = auth.tokenChanges;
    try {
      const r = this.recheck();
      if (pending(r)) {
        r.catch(() => undefined);
        return false;
      }
      this.heldAt = changes;
      return true;
    } catch {
      return false;
    }
  }

  /** Aborted, with the 401 as its reason, once the token is revoked or expires; `stop` when done. */
  watchToken(): { signal: AbortSignal; stop: () => void } {
    const revoked = new AbortController();
    const timer = setInterval(() => {
      Promise.resolve()
        .then(() => this.recheck())
        .catch((e: unknown) => {
          clearInterval(timer);
          revoked.abort(e);
        });
    }, RECHECK_MS);
    timer.unref();
    return { signal: revoked.signal, stop: () => clearInterval(timer) };
  }
}
