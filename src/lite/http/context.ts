/** What every handler receives besides the exchange. */
import type { Auth, Principal } from "../auth/access.js";
import type { Store } from "../store/store.js";
import type { Exchange } from "./exchange.js";
import type { AppendLimits } from "../session/append-limits.js";
import type { Drain } from "../session/io.js";
import type { LiteMetrics } from "../metrics/lite-metrics.js";

export interface RequestContext {
  store: Store;
  /** Percent-decoded path parameters, in route order. */
  params: string[];
  principal: Principal;
  auth: Auth;
  /** §9.4: what an auto-prefix token puts before stream names ("" otherwise); path params already carry it. */
  streamPrefix: string;
  /** The server's drain (shutdown) signal: sessions wind down, long-polls answer at once. */
  drain: Drain;
  log: (msg: string) => void;
  /** What append sessions may hold: in-flight bytes (shared, per token, per connection) and time. */
  appendLimits: AppendLimits;
  /** Metrics; undefined with --no-metrics. */
  metrics?: LiteMetrics | undefined;
  /** The server's one location (A13–A15). */
  location: string;
}

export type Handler = (ex: Exchange, ctx: RequestContext) => Promise<void>;
