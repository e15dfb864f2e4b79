/**
 * The API's routes (protocol.md §2.1) and what each request needs (§9.2, §9.3): its operation
 * (or the operations its state chooses between), the operations its content may add, and the
 * resources it names, from its head and, for a create, from its body. The router decides each
 * request's access from this, once (auth/decision.ts), before its handler runs.
 */
import type { Operation } from "../../types.js";
import type { Resources } from "../auth/decision.js";
import * as accessTokens from "./access-tokens.js";
import * as basins from "./basins.js";
import type { BodyStep, Handler } from "./context.js";
import type { Exchange } from "./exchange.js";
import * as locations from "./locations.js";
import * as metrics from "./metrics.js";
import { requestBasin } from "./params.js";
import * as records from "./records.js";
import * as streams from "./streams.js";

/** The resources a request's head names, from its percent-decoded path parameters (and Host or basin header). */
export type Names = (ex: Exchange, params: string[]) => Resources;

interface Needs {
  ops: readonly Operation[];
  /** §9.2: further operations what it carries may need, decided with it. */
  also?: readonly Operation[];
  /** What it counts as in metrics when `ops` has several. */
  counted?: string;
  /** The resources its head names, when they are not its route's (a name judged before the decision). */
  names?: Names;
}

/** One method of a route: a handler, or a create whose body names what it acts on. */
export type Endpoint = Needs & ({ run: Handler } | { body: BodyStep });

export interface Route {
  /** Literal segments, or "*" for one parameter. */
  pattern: string[];
  names: Names;
  methods: Partial<Record<string, Endpoint>>;
}

const NONE: Names = () => ({});
const basinNames: Names = (_ex, params) => ({ basin: params[0] });
/** Stream-level requests: the basin of the Host or basin header, the stream of the path (an auto-prefix token's prefix put before it). */
const streamNames: Names = (ex, params) => ({ basin: requestBasin(ex), stream: params[0] });
const metricNames: Names = (_ex, params) => ({ basin: params[0], stream: params[1] });

/**
 * §9.2: a request that may create a stream (§10.3 auto-creation) may choose its config with
 * the stream-config header only with `create-stream` (http/encryption.ts); an append's command
 * records also need `fence` or `trim`.
 */
const MAY_CREATE: readonly Operation[] = ["create-stream"];
const APPEND_ALSO: readonly Operation[] = ["fence", "trim", "create-stream"];

export const ROUTES: Route[] = [
  {
    pattern: ["v1", "basins"],
    names: NONE,
    methods: {
      GET: { ops: ["list-basins"], run: basins.listBasinsHandler },
      POST: { ops: ["create-basin"], body: basins.createBasinHandler },
    },
  },
  {
    pattern: ["v1", "basins", "*"],
    names: basinNames,
    methods: {
      GET: { ops: ["get-basin-config"], run: basins.getBasinHandler },
      PUT: {
        ops: ["create-basin", "reconfigure-basin"],
        counted: "ensure-basin",
        names: basins.ensureBasinNames,
        run: basins.ensureBasinHandler,
      },
      PATCH: { ops: ["reconfigure-basin"], run: basins.reconfigureBasinHandler },
      DELETE: { ops: ["delete-basin"], run: basins.deleteBasinHandler },
    },
  },
  {
    pattern: ["v1", "streams"],
    names: streamNames,
    methods: {
      GET: { ops: ["list-streams"], run: streams.listStreamsHandler },
      POST: { ops: ["create-stream"], body: streams.createStreamHandler },
    },
  },
  {
    pattern: ["v1", "streams", "*"],
    names: streamNames,
    methods: {
      GET: { ops: ["get-stream-config"], run: streams.getStreamHandler },
      PUT: {
        ops: ["create-stream", "reconfigure-stream"],
        counted: "ensure-stream",
        names: streams.ensureStreamNames,
        run: streams.ensureStreamHandler,
      },
      PATCH: { ops: ["reconfigure-stream"], run: streams.reconfigureStreamHandler },
      DELETE: { ops: ["delete-stream"], run: streams.deleteStreamHandler },
    },
  },
  {
    pattern: ["v1", "streams", "*", "records"],
    names: streamNames,
    methods: {
      GET: { ops: ["read"], also: MAY_CREATE, run: records.readHandler },
      POST: { ops: ["append"], also: APPEND_ALSO, run: records.appendHandler },
    },
  },
  {
    pattern: ["v1", "streams", "*", "records", "tail"],
    names: streamNames,
    methods: { GET: { ops: ["check-tail"], also: MAY_CREATE, run: records.checkTailHandler } },
  },
  {
    pattern: ["v1", "access-tokens"],
    names: NONE,
    methods: {
      GET: { ops: ["list-access-tokens"], run: accessTokens.listTokensHandler },
      POST: { ops: ["issue-access-token"], body: accessTokens.issueTokenHandler },
    },
  },
  {
    pattern: ["v1", "access-tokens", "*"],
    names: accessTokens.revokeTokenNames,
    methods: { DELETE: { ops: ["revoke-access-token"], run: accessTokens.revokeTokenHandler } },
  },
  {
    pattern: ["v1", "metrics"],
    names: NONE,
    methods: { GET: { ops: ["account-metrics"], run: metrics.accountMetricsHandler } },
  },
  {
    pattern: ["v1", "metrics", "*"],
    names: metricNames,
    methods: { GET: { ops: ["basin-metrics"], run: metrics.basinMetricsHandler } },
  },
  {
    pattern: ["v1", "metrics", "*", "*"],
    names: metricNames,
    methods: { GET: { ops: ["stream-metrics"], run: metrics.streamMetricsHandler } },
  },
  {
    pattern: ["v1", "locations"],
    names: NONE,
    methods: { GET: { ops: ["list-locations"], run: locations.listLocationsHandler } },
  },
  {
    pattern: ["v1", "locations", "default"],
    names: NONE,
    methods: {
      GET: { ops: ["get-default-location"], run: locations.getDefaultLocationHandler },
      PUT: { ops: ["set-default-location"], run: locations.setDefaultLocationHandler },
    },
  },
  { pattern: ["metrics"], names: NONE, methods: { GET: { ops: ["account-metrics"], run: metrics.prometheusHandler } } },
];

/** The parameters of `segments` if they match `pattern`, else undefined. */
export function match(pattern: string[], segments: string[]): string[] | undefined {
  const params: string[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const s = segments[i];
    if (s === undefined) return undefined;
    if (p === "*") params.push(s);
    else if (p !== s) return undefined;
  }
  return segments.length === pattern.length ? params : undefined;
}

/** The operation a request counts as in metrics. */
export function countedAs(e: Endpoint): string {
  return e.counted ?? e.ops[0]!;
}
