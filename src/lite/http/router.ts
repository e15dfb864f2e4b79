/**
 * (method, path) → handler (protocol.md §2.1, the table in routes.ts). Every API request is
 * authenticated here and its access decided once, from what its route declares (§9.2, §9.3;
 * auth/decision.ts); the handler receives the decision. Paths are split on "/" BEFORE
 * percent-decoding, so a stream `a/b` sent as `a%2Fb` stays one segment. Unknown route → 404
 * with an empty body; a known path with the wrong method → 405. Every error a handler throws
 * becomes a JSON body with a catalogue code (§11).
 */
import { isIP } from "node:net";
import { SvcError, serverError } from "../../errors.js";
import type { Auth } from "../auth/access.js";
import { decide, type Resources, streamPrefixOf } from "../auth/decision.js";
import { quoted } from "../log.js";
import type { LiteMetrics } from "../metrics/lite-metrics.js";
import type { AppendLimits } from "../session/append-limits.js";
import type { Drain } from "../session/io.js";
import type { ReadLimits } from "../session/read-limits.js";
import { basinExists } from "../store/basins.js";
import type { Store } from "../store/store.js";
import { causeText, wireError } from "../wire-error.js";
import type { Handler, HeadContext } from "./context.js";
import type { Exchange } from "./exchange.js";
import { answerHealth } from "./health.js";
import { requestBasin } from "./params.js";
import { countedAs, type Endpoint, match, ROUTES, type Route } from "./routes.js";

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw serverError("bad_path", "the path is not valid percent-encoded UTF-8");
  }
}

/**
 * URLSearchParams turns percent-escapes that are not UTF-8 into U+FFFD; a query value must not
 * silently become another (`start_after=%ED%A0%80`): 400 bad_query, as the path gets bad_path.
 */
function checkQueryEncoding(raw: string): void {
  if (!raw.includes("%")) return;
  for (const part of raw.split("&")) {
    try {
      decodeURIComponent(part);
    } catch {
      throw serverError(
        "bad_query",
        `the query is not valid percent-encoded UTF-8: ${JSON.stringify(part.slice(0, 60))}`,
      );
    }
  }
}

export interface CorsPolicy {
  /** Origins allowed to make cross-origin requests while auth is off (--cors-origin). */
  origins: string[];
  /** While auth is off: host names answered besides localhost names and IPs (--allow-host, a --host name). */
  hosts: string[];
}

interface RouterDeps {
  store: Store;
  auth: Auth;
  cors: CorsPolicy;
  drain: Drain;
  log: (msg: string) => void;
  appendLimits: AppendLimits;
  heartbeatMs: number;
  readLimits: ReadLimits;
  metrics?: LiteMetrics | undefined;
  location: string;
}

export async function route(ex: Exchange, deps: RouterDeps): Promise<void> {
  try {
    if (ex.path === "/health" || ex.path === "/ping") return await answerHealth(ex, deps.auth);
    // Refusals before authentication never wait for the body: the answer closes the
    // connection (HTTP/1.1) or resets the stream (HTTP/2), see Exchange.writeHead.
    if (!deps.auth.enabled && !hostAllowed(ex.host, deps.cors.hosts)) {
      throw serverError(
        "permission_denied",
        `requests for host ${JSON.stringify(ex.host)} are refused: svc lite runs with --no-auth and answers only localhost names, IP addresses and --allow-host names`,
      );
    }
    if (!corsAllowed(ex, deps)) {
      const from = ex.header("origin") ?? `another site (Sec-Fetch-Site: ${ex.header("sec-fetch-site")})`;
      throw serverError(
        "permission_denied",
        `cross-origin requests from ${from} are refused: svc lite runs with --no-auth (allow an origin with --cors-origin)`,
      );
    }
    if (ex.method === "OPTIONS" && ex.header("access-control-request-method") !== undefined) {
      // A CORS preflight: allow every method and header (Appendix B).
      return ex.sendEmpty(204, {
        "access-control-allow-methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
        "access-control-allow-headers": ex.header("access-control-request-headers") ?? "*",
        "access-control-max-age": "86400",
      });
    }
    checkQueryEncoding(ex.rawQuery);
    ex.checkDialect();
    const segments = ex.path.split("/").slice(1);
    for (const r of ROUTES) {
      const raw = match(r.pattern, segments);
      if (!raw) continue;
      const endpoint = r.methods[ex.method];
      if (!endpoint) return ex.sendEmpty(405, { allow: Object.keys(r.methods).join(", ") });
      if (deps.metrics) return await counted(ex, deps, deps.metrics, r, endpoint, raw);
      return await handle(ex, deps, r, endpoint, raw);
    }
    ex.sendEmpty(404);
  } catch (e) {
    await sendError(ex, e, deps.log);
  }
}

/** Runs a matched route, then counts the request by operation, status and latency. */
async function counted(
  ex: Exchange,
  deps: RouterDeps,
  m: LiteMetrics,
  r: Route,
  e: Endpoint,
  raw: string[],
): Promise<void> {
  const t0 = performance.now();
  const op = countedAs(e);
  try {
    await handle(ex, deps, r, e, raw);
  } catch (err) {
    await sendError(ex, err, deps.log);
  }
  m.stats.request(op, ex.status, (performance.now() - t0) / 1000);
  // The account's and its basins' operations are those its tokens were allowed to make: a
  // request refused with 401 or 403 (anyone can send one) is counted above only.
  if (ex.status === 401 || ex.status === 403) return;
  // A basin's own counts only for basins that exist: a typo must not make one "active".
  const basin = r.pattern[1] === "streams" ? basinOfHost(ex) : undefined;
  m.recorder.request(
    op,
    basin !== undefined && (await basinExists(deps.store, basin).catch(() => false)) ? basin : undefined,
  );
}

/** The basin a basin-level request names, if its name is valid. */
function basinOfHost(ex: Exchange): string | undefined {
  try {
    return requestBasin(ex);
  } catch {
    return undefined;
  }
}

/**
 * Authenticates, decides the request's access once from what its route declares (the body
 * read first where it names resources), and runs the handler with the decision.
 */
async function handle(ex: Exchange, deps: RouterDeps, r: Route, e: Endpoint, raw: string[]): Promise<void> {
  const principal = await deps.auth.authenticate(ex.header("authorization"));
  // A body may take long to arrive: the principal is checked again once it has, before the
  // request acts (a token revoked meanwhile gets 401, whatever the request).
  ex.bodyGate = () => deps.auth.recheck(principal);
  const streamPrefix = streamPrefixOf(principal);
  const params = raw.map(decode);
  if (r.pattern[1] === "streams" && params.length > 0) params[0] = streamPrefix + params[0]!;
  if (r.pattern[1] === "metrics" && params.length > 1) params[1] = streamPrefix + params[1]!;
  const head: HeadContext = {
    store: deps.store,
    params,
    auth: deps.auth,
    streamPrefix,
    drain: deps.drain,
    log: deps.log,
    appendLimits: deps.appendLimits,
    heartbeatMs: deps.heartbeatMs,
    readLimits: deps.readLimits,
    metrics: deps.metrics,
    location: deps.location,
  };
  let step: { names: Resources; act: Handler } | undefined;
  const access = await decide(principal, {
    ops: e.ops,
    also: e.also,
    names: (e.names ?? r.names)(ex, params),
    body: "body" in e ? async () => (step = await e.body(ex, head)).names : undefined,
  });
  const act = "run" in e ? e.run : step!.act;
  return await act(ex, { ...head, access });
}

/**
 * CORS. With auth on, any origin may call (a page still needs a token it cannot get by
 * itself). With --no-auth a page could drive a local server with no secret at all, so only
 * the --cors-origin allow-list may; other cross-origin requests are refused unexecuted.
 */
function corsAllowed(ex: Exchange, deps: RouterDeps): boolean {
  const origin = ex.header("origin");
  if (deps.auth.enabled) {
    if (origin !== undefined) ex.corsAllowOrigin = "*";
    return true;
  }
  // A no-cors request (an <img>, a <form>, a navigation) carries no Origin, but a browser
  // says where it came from in Sec-Fetch-Site: from another site, or from another origin of
  // the same site (another port of localhost), it is refused unless its origin is allowed.
  const site = ex.header("sec-fetch-site");
  const foreign = site === "cross-site" || site === "same-site";
  if (origin === undefined) return !foreign;
  if (!deps.cors.origins.includes(origin)) return false;
  ex.corsAllowOrigin = origin;
  return true;
}

/**
 * DNS rebinding: with --no-auth, a web page whose name was pointed at this machine could read
 * everything with same-origin requests, which carry no Origin header; their Host is the
 * page's name. So an open server answers only a Host that is an IP address, `localhost` or a
 * `*.localhost` name, or one of `allowed` (or a subdomain of one: `{basin}.` Host prefixes).
 * A request without a Host (no browser sends one) is answered.
 */
function hostAllowed(host: string | undefined, allowed: string[]): boolean {
  if (host === undefined || host === "") return true;
  const name = (host.startsWith("[") ? host.slice(1, host.indexOf("]")) : host.replace(/:\d*$/, ""))
    .toLowerCase()
    .replace(/\.$/, "");
  if (isIP(name) !== 0 || name === "localhost" || name.endsWith(".localhost")) return true;
  return allowed.some((a) => name === a || name.endsWith(`.${a}`));
}

/** Any thrown value → a catalogue JSON body (412/416 keep their structured bodies); see wire-error.ts. */
async function sendError(ex: Exchange, e: unknown, log: (msg: string) => void): Promise<void> {
  if (ex.signal.aborted && !ex.responded) ex.status = 499; // counted as client_hangup: nobody to answer
  if (!(e instanceof SvcError)) {
    if (ex.signal.aborted) return; // the client went away mid-request: not a server error, and nobody to answer
    log(`internal error on ${ex.method} ${quoted(ex.path)}: ${(e as Error)?.stack ?? e}`);
  }
  const err = wireError(e);
  if (err.status !== undefined && err.status >= 500)
    log(`${ex.method} ${quoted(ex.path)} → ${err.status} ${err.code}: ${err.message}${causeText(e)}`);
  if (ex.responded || ex.signal.aborted) return;
  await ex.sendJson(err.status ?? 500, err.toBody()).catch(() => undefined);
}
