/**
 * (method, path) → handler (protocol.md §2.1). Paths are split on "/" BEFORE
 * percent-decoding, so a stream `a/b` sent as `a%2Fb` stays one segment. Unknown route → 404
 * with an empty body; a known path with the wrong method → 405. Every error a handler throws
 * becomes a JSON body with a catalogue code (§11).
 */
import { SERVER_CODES, serverError, SvcError } from "../../errors.js";
import type { Auth, Operation } from "../auth.js";
import type { Store } from "../store/store.js";
import type { ByteBudget } from "../session/byte-budget.js";
import * as basins from "./basins.js";
import type { Handler, RequestContext } from "./context.js";
import type { Exchange } from "./exchange.js";
import * as records from "./records.js";
import * as streams from "./streams.js";

interface Route {
  /** Literal segments, or "*" for one parameter, or "**" for any rest (501 stubs). */
  pattern: string[];
  methods: Partial<Record<string, [Operation | undefined, Handler]>>;
}

const stub: [undefined, Handler] = [undefined, basins.notImplemented];
const anyMethod = { GET: stub, POST: stub, PUT: stub, PATCH: stub, DELETE: stub };

const ROUTES: Route[] = [
  { pattern: ["v1", "basins"], methods: { GET: ["list-basins", basins.listBasinsHandler], POST: ["create-basin", basins.createBasinHandler] } },
  {
    pattern: ["v1", "basins", "*"],
    methods: {
      GET: ["get-basin-config", basins.getBasinHandler], PUT: ["create-basin", basins.ensureBasinHandler],
      PATCH: ["reconfigure-basin", basins.reconfigureBasinHandler], DELETE: ["delete-basin", basins.deleteBasinHandler],
    },
  },
  { pattern: ["v1", "streams"], methods: { GET: ["list-streams", streams.listStreamsHandler], POST: ["create-stream", streams.createStreamHandler] } },
  {
    pattern: ["v1", "streams", "*"],
    methods: {
      GET: ["get-stream-config", streams.getStreamHandler], PUT: ["create-stream", streams.ensureStreamHandler],
      PATCH: ["reconfigure-stream", streams.reconfigureStreamHandler], DELETE: ["delete-stream", streams.deleteStreamHandler],
    },
  },
  { pattern: ["v1", "streams", "*", "records"], methods: { GET: ["read", records.readHandler], POST: ["append", records.appendHandler] } },
  { pattern: ["v1", "streams", "*", "records", "tail"], methods: { GET: ["check-tail", records.checkTailHandler] } },
  { pattern: ["v1", "access-tokens"], methods: anyMethod },
  { pattern: ["v1", "access-tokens", "**"], methods: anyMethod },
  { pattern: ["v1", "metrics"], methods: anyMethod },
  { pattern: ["v1", "metrics", "**"], methods: anyMethod },
  { pattern: ["v1", "locations"], methods: anyMethod },
  { pattern: ["v1", "locations", "**"], methods: anyMethod },
];

function match(pattern: string[], segments: string[]): string[] | undefined {
  const params: string[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    if (p === "**") return segments.length > i ? params : undefined;
    const s = segments[i];
    if (s === undefined) return undefined;
    if (p === "*") params.push(s);
    else if (p !== s) return undefined;
  }
  return segments.length === pattern.length ? params : undefined;
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw serverError("bad_path", "the path is not valid percent-encoded UTF-8");
  }
}

export interface RouterDeps {
  store: Store;
  auth: Auth;
  shutdown: AbortSignal;
  log: (msg: string) => void;
  appendBudget: ByteBudget;
}

export async function route(ex: Exchange, deps: RouterDeps): Promise<void> {
  try {
    if (ex.path === "/health" || ex.path === "/ping") {
      if (ex.method !== "GET" && ex.method !== "HEAD") return ex.sendEmpty(405, { allow: "GET, HEAD" });
      return ex.sendText(200, "OK");
    }
    if (ex.method === "OPTIONS" && ex.header("access-control-request-method") !== undefined) {
      // A CORS preflight: allow every method and header (Appendix B).
      return ex.sendEmpty(204, {
        "access-control-allow-methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
        "access-control-allow-headers": ex.header("access-control-request-headers") ?? "*",
        "access-control-max-age": "86400",
      });
    }
    const segments = ex.path.split("/").slice(1);
    for (const r of ROUTES) {
      const raw = match(r.pattern, segments);
      if (!raw) continue;
      const entry = r.methods[ex.method];
      if (!entry) return ex.sendEmpty(405, { allow: Object.keys(r.methods).join(", ") });
      const principal = deps.auth.authenticate(ex.header("authorization"));
      if (entry[0]) deps.auth.authorize(principal, entry[0]);
      const ctx: RequestContext = { store: deps.store, params: raw.map(decode), principal, shutdown: deps.shutdown, log: deps.log, appendBudget: deps.appendBudget };
      return await entry[1](ex, ctx);
    }
    ex.sendEmpty(404);
  } catch (e) {
    await sendError(ex, e, deps.log);
  }
}

/** Any thrown value → a catalogue JSON body (412/416 keep their structured bodies). */
export async function sendError(ex: Exchange, e: unknown, log: (msg: string) => void): Promise<void> {
  let err: SvcError;
  if (e instanceof SvcError) {
    if (e.code === "out_of_range") err = serverError("invalid", e.message);
    else if (e.status === 412 || e.status === 416 || (e.code in SERVER_CODES && e.status !== undefined)) err = e;
    else err = serverError("other", e.message);
  } else {
    log(`internal error on ${ex.method} ${ex.path}: ${(e as Error)?.stack ?? e}`);
    err = serverError("other", "internal server error");
  }
  if (err.status !== undefined && err.status >= 500) log(`${ex.method} ${ex.path} → ${err.status} ${err.code}: ${err.message}`);
  if (ex.responded || ex.signal.aborted) return;
  await ex.sendJson(err.status ?? 500, err.toBody()).catch(() => undefined);
}
