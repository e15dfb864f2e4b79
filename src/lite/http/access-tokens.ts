/** Access-token endpoints A7–A9 (protocol.md §2.2, §3.5, §9). */
import { serverError } from "../../errors.js";
import { parseIssueRequest, tokenIdProblem, tokenInfoJson } from "../auth/token-info.js";
import type { RequestContext } from "./context.js";
import type { Exchange } from "./exchange.js";
import { requiredJson } from "./json-body.js";
import { checkPrefix, u64Query } from "./params.js";
import { hasNul } from "../../rules/names.js";

const LIST_LIMIT = 1000;

function idQuery(q: URLSearchParams, name: string): string {
  const all = q.getAll(name);
  if (all.length > 1) throw serverError("bad_query", `\`${name}\` given more than once`);
  const v = all[0] ?? "";
  checkPrefix(v, `\`${name}\``);
  if (Buffer.byteLength(v, "utf8") > 96) throw serverError("bad_query", `\`${name}\` must be at most 96 bytes`);
  return v;
}

export async function listTokensHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const prefix = idQuery(ex.query, "prefix");
  const startAfter = idQuery(ex.query, "start_after");
  const raw = u64Query(ex.query, "limit");
  const limit = raw === undefined || raw === 0 || raw > LIST_LIMIT ? LIST_LIMIT : raw;
  const page = await ctx.auth.list(ctx.principal, prefix, startAfter, limit);
  await ex.sendJson(200, { access_tokens: page.tokens.map(tokenInfoJson), has_more: page.hasMore });
}

export async function issueTokenHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  ctx.auth.authorize(ctx.principal, "issue-access-token");
  const req = parseIssueRequest(await requiredJson(ex));
  const secret = await ctx.auth.issue(ctx.principal, req);
  await ex.sendJson(201, { access_token: secret });
}

export async function revokeTokenHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const id = ctx.params[0]!;
  const problem = tokenIdProblem(id);
  if (problem) throw serverError(hasNul(id) ? "invalid" : "bad_path", problem);
  await ctx.auth.revoke(ctx.principal, id);
  ex.sendEmpty(204);
}
