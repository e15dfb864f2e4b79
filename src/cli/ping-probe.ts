/**
 * The probes behind `svc ping`. The protocol has no "who am I", so what a token may do is
 * derived honestly from what can be asked without effect:
 * - who answers: `GET /ping` (svc lite adds `svc-lite-version`);
 * - in which dialect: a basin-level read naming its basin in svc's dialect (wire/dialect.ts);
 *   a server that does not know those names answers 400 bad_header, and the other dialect
 *   is tried (with direct routing only: a basin endpoint that routes by host names no dialect);
 * - whether the server requires tokens: list-basins (limit 1) without one;
 * - whether ours is accepted and what it may read: list-basins and list-access-tokens, and
 *   with a `svc://basin[/stream]`, get-basin-config and list-streams, get-stream-config,
 *   check-tail and a read of at most one record (nothing is printed from it);
 * - the kind of token, on svc lite only: lite accepts its root token and tokens it issued,
 *   which have the form `svc.<key id>.<secret>`, so an accepted token of another form is root.
 * Writes are never probed: no write can be tried without an effect.
 */
import type { SvcClient } from "../client/client.js";
import { SvcError } from "../errors.js";
import type { AccessProbe, PingReport } from "../format/ping-view.js";
import { latencySummary } from "../format/ping-view.js";
import type { Dialect } from "../types.js";
import { formatUri } from "./uri.js";

/** svc lite's issued tokens (lite/auth/secret.ts); its root token has another form. */
const LITE_ISSUED_TOKEN = /^svc\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{43}$/;

export interface PingPlan {
  endpoint: { url: string; source: string };
  basinEndpoint?: { url: string; source: string };
  token?: { value: string; source: string };
  basin?: string;
  stream?: string;
  /** Timed `GET /ping` round trips after the first. */
  count: number;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  ms: number;
}

/** One timed GET /ping; a non-2xx status is an answer too (the server is reachable). */
async function timedPing(client: SvcClient): Promise<Answer> {
  const started = performance.now();
  try {
    return await client.server.ping();
  } catch (e) {
    if (e instanceof SvcError && e.status !== undefined)
      return { status: e.status, headers: {}, ms: performance.now() - started };
    throw e;
  }
}

/** The error behind each probe that failed, for the error `svc ping` may end with. */
const failures = new WeakMap<AccessProbe, SvcError>();

/** An answered request as a probe result; failures that are not answers (network) propagate. */
async function probe(operation: string, resource: string | null, fn: () => Promise<unknown>): Promise<AccessProbe> {
  try {
    await fn();
    return { operation, resource, allowed: true, status: 200, code: null };
  } catch (e) {
    if (!(e instanceof SvcError) || e.status === undefined) throw e;
    // 416: the read was allowed, and there is nothing at or after its start (an empty stream).
    if (e.status === 416) return { operation, resource, allowed: true, status: 416, code: e.code };
    const refused = e.status === 401 || e.status === 403;
    const p: AccessProbe = { operation, resource, allowed: refused ? false : null, status: e.status, code: e.code };
    failures.set(p, e);
    return p;
  }
}

/** Whether the server refuses a request without a token (null: neither answered nor refused). */
async function authRequired(anonymous: SvcClient): Promise<boolean | null> {
  const p = await probe("list-basins", null, () => anonymous.basins.list({ limit: 1 }));
  return p.allowed === null ? null : !p.allowed;
}

async function accessProbes(client: SvcClient, plan: PingPlan): Promise<AccessProbe[]> {
  const out = [
    await probe("list-basins", null, () => client.basins.list({ limit: 1 })),
    await probe("list-access-tokens", null, () => client.accessTokens.list({ limit: 1 })),
  ];
  if (plan.basin === undefined) return out;
  const basinUri = formatUri(plan.basin);
  const basin = client.basin(plan.basin);
  out.push(await probe("get-basin-config", basinUri, () => client.basins.getConfig(plan.basin!)));
  out.push(await probe("list-streams", basinUri, () => basin.streams.list({ limit: 1 })));
  if (plan.stream === undefined) return out;
  const uri = formatUri(plan.basin, plan.stream);
  const stream = basin.stream(plan.stream);
  out.push(await probe("get-stream-config", uri, () => basin.streams.getConfig(plan.stream!)));
  out.push(await probe("check-tail", uri, () => stream.checkTail()));
  out.push(await probe("read", uri, () => stream.readBatch({ seqNum: 0 }, { count: 1, wait: 0, clamp: true })));
  return out;
}

/** A valid basin name nobody needs to have: list-streams of it has no effect. */
const PROBE_BASIN = "svc-ping-dialect-probe";

/**
 * Whether a server understood `client`'s names, from a list-streams of `basin`: an answer
 * (a page, or 404 basin_not_found) says yes, 400 bad_header (no basin header it knows) says
 * no; anything else (401, a refusal, another server's 404) does not tell (null).
 */
async function understands(client: SvcClient, basin: string): Promise<boolean | null> {
  try {
    await client.basin(basin).streams.list({ limit: 1 });
    return true;
  } catch (e) {
    if (!(e instanceof SvcError) || e.status === undefined) throw e;
    if (e.code === "bad_header") return false;
    return e.code === "basin_not_found" ? true : null;
  }
}

/**
 * The dialect the server answered in: the client's when it understood it, else the other one
 * if that one is understood (`other` makes a client speaking it), else null.
 */
async function dialectProbe(
  client: SvcClient,
  other: (d: Dialect) => Promise<SvcClient>,
  plan: PingPlan,
): Promise<Dialect | null> {
  const basin = plan.basin ?? PROBE_BASIN;
  if (!("svc-basin" in client.basin(basin).route.headers)) return null;
  const ours = await understands(client, basin);
  if (ours !== false) return ours ? client.dialect : null;
  const otherDialect: Dialect = client.dialect === "svc" ? "s2" : "svc";
  const c = await other(otherDialect);
  try {
    return (await understands(c, basin)) ? otherDialect : null;
  } finally {
    await c.close();
  }
}

/**
 * Runs every probe. `failure` is list-basins' error when the server refused the token (401) or
 * answered it with neither data nor a refusal (not this service?): the command prints the
 * report, then ends with it (exit 3, 4…, as for any request).
 */
export async function runPing(
  client: SvcClient,
  anonymous: SvcClient,
  plan: PingPlan,
  other: (d: Dialect) => Promise<SvcClient>,
): Promise<{ report: PingReport; failure?: SvcError }> {
  const first = await timedPing(client);
  const version = first.headers["svc-lite-version"];
  const dialect = await dialectProbe(client, other, plan);
  const required = await authRequired(anonymous);
  const access = await accessProbes(client, plan);
  const samples: number[] = [];
  for (let i = 0; i < plan.count; i++) samples.push((await timedPing(client)).ms);
  const listBasins = access[0]!;
  const accepted =
    plan.token === undefined || required !== true
      ? null
      : listBasins.status === 401
        ? false
        : listBasins.allowed === null
          ? null
          : true;
  const lite = version !== undefined;
  const kind =
    lite && accepted === true && plan.token
      ? LITE_ISSUED_TOKEN.test(plan.token.value)
        ? "lite-issued"
        : "lite-root"
      : null;
  const report: PingReport = {
    endpoint: plan.endpoint,
    ...(plan.basinEndpoint ? { basin_endpoint: plan.basinEndpoint } : {}),
    server: { ping_status: first.status, lite, version: version ?? null, dialect, dialect_asked: client.dialect },
    auth_required: required,
    token: { configured: plan.token !== undefined, source: plan.token?.source ?? null, accepted, kind },
    access,
    not_probed: notProbed(plan, kind),
    latency_ms: latencySummary("GET /ping", first.ms, samples),
  };
  const failed = listBasins.status === 401 || listBasins.allowed === null;
  return failed ? { report, failure: failures.get(listBasins)! } : { report };
}

function notProbed(plan: PingPlan, kind: PingReport["token"]["kind"]): string[] {
  const out: string[] = [];
  if (kind === "lite-root") return out;
  if (plan.basin === undefined) out.push("basin and stream reads not probed: give svc://basin or svc://basin/stream");
  else if (plan.stream === undefined) out.push("stream reads not probed: give svc://basin/stream");
  out.push(
    "writes (create, reconfigure, delete, append, fence, trim, issue and revoke tokens) not probed: none can be tried without an effect",
  );
  return out;
}
