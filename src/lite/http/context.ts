/** What every handler receives besides the exchange. */
import type { Principal } from "../auth.js";
import type { Store } from "../store/store.js";
import type { Exchange } from "./exchange.js";

export interface RequestContext {
  store: Store;
  /** Percent-decoded path parameters, in route order. */
  params: string[];
  principal: Principal;
  /** Aborted on shutdown so long-polls answer at once. */
  shutdown: AbortSignal;
  log: (msg: string) => void;
}

export type Handler = (ex: Exchange, ctx: RequestContext) => Promise<void>;
