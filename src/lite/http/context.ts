/** What every handler receives besides the exchange. */
import type { Auth } from "../auth/access.js";
import type { Access, Resources } from "../auth/decision.js";
import type { LiteMetrics } from "../metrics/lite-metrics.js";
import type { AppendLimits } from "../session/append-limits.js";
import type { Drain } from "../session/io.js";
import type { ReadLimits } from "../session/read-limits.js";
import type { Store } from "../store/store.js";
import type { Exchange } from "./exchange.js";

/** What a request has before its access is decided. */
export interface HeadContext {
  store: Store;
  /** Percent-decoded path parameters, in route order. */
  params: string[];
  auth: Auth;
  /** §9.4: what an auto-prefix token puts before stream names ("" otherwise); path params already carry it. */
  streamPrefix: string;
  /** The server's drain (shutdown) signal: sessions wind down, long-polls answer at once. */
  drain: Drain;
  log: (msg: string) => void;
  /** What append sessions may hold: in-flight bytes (shared, per token, per connection) and time. */
  appendLimits: AppendLimits;
  /** The longest a read session waiting at the tail goes without a message; heartbeats from a third of it up to it. */
  heartbeatMs: number;
  /** How many read sessions one token, and one connection, may have open. */
  readLimits: ReadLimits;
  /** Metrics; undefined with --no-metrics. */
  metrics?: LiteMetrics | undefined;
  /** The server's one location (A13–A15). */
  location: string;
}

export interface RequestContext extends HeadContext {
  /** The request's access decision, made once by the router (auth/decision.ts): who asks, and what it may do. */
  access: Access;
}

export type Handler = (ex: Exchange, ctx: RequestContext) => Promise<void>;

/**
 * A request whose body names what it acts on (a new basin, stream or token id): `read` reads
 * and judges the body, `names` says what it names, and the access decision waits for both.
 */
export interface BodyNamed<B> {
  read(ex: Exchange, head: HeadContext): Promise<B>;
  names(body: B, head: HeadContext): Resources;
  act(ex: Exchange, ctx: RequestContext, body: B): Promise<void>;
}

/** One request of a BodyNamed endpoint: what its body names, and the act that uses the body. */
export type BodyStep = (ex: Exchange, head: HeadContext) => Promise<{ names: Resources; act: Handler }>;

export function bodyStep<B>(spec: BodyNamed<B>): BodyStep {
  return async (ex, head) => {
    const body = await spec.read(ex, head);
    return { names: spec.names(body, head), act: (e, ctx) => spec.act(e, ctx, body) };
  };
}
