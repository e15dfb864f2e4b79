/** Access-token endpoints A7–A9 (protocol.md §2.2, §3.5, §9). */
import { serverError } from "../../errors.js";
import { hasNul } from "../../rules/names.js";
import { LIMITS } from "../../types.js";
import type { Resources } from "../auth/decision.js";
import { badTokenId, type IssueRequest, parseIssueRequest, tokenInfoJson } from "../auth/token-info.js";
import { bodyStep, type RequestContext } from "./context.js";
import type { Exchange } from "./exchange.js";
import { requiredJson } from "./json-body.js";
import { checkPrefix, u64Query } from "./params.js";

const LIST_LIMIT = 1000;

function idQuery(q: URLSearchParams, name: string): string {
  const all = q.getAll(name);
  if (all.length > 1) throw serverError("bad_query", `\`${name}\` given more than once`);
  const v = all[0] ?? "";
  checkPrefix(v, `\`${name}\``);
  if (Buffer.byteLength(v, "utf8") > LIMITS.tokenIdMaxBytes)
    throw serverError("bad_query", `\`${name}\` must be at most ${LIMITS.tokenIdMaxBytes} bytes`);
  return v;
}

export async function listTokensHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  const prefix = idQuery(ex.query, "prefix");
  const startAfter = idQuery(ex.query, "start_after");
  const raw = u64Query(ex.query, "limit");
  const limit = raw === undefined || raw === 0 || raw > LIST_LIMIT ? LIST_LIMIT : raw;
  const page = await ctx.auth.list(ctx.access, prefix, startAfter, limit);
  await ex.sendJson(200, { access_tokens: page.tokens.map(tokenInfoJson), has_more: page.hasMore });
}

/** A8: the body names the new token's id, so the decision waits for it (BodyNamed). */
export const issueTokenHandler = bodyStep<IssueRequest>({
  read: async (ex, head) => parseIssueRequest(await requiredJson(ex), head.auth.now()),
  names: (req) => ({ tokenId: req.id }),
  async act(ex, ctx, req) {
    const secret = await ctx.auth.issue(ctx.access, req);
    await ex.sendJson(201, { access_token: secret });
  },
});

/** A9's token id, checked before its access is decided (a bad id is 400, or 422 for a NUL, whatever the token). */
export function revokeTokenNames(_ex: Exchange, params: string[]): Resources {
  const id = params[0]!;
  const problem = badTokenId(id);
  if (problem) throw serverError(hasNul(id) ? "invalid" : "bad_path", problem);
  return { tokenId: id };
}

export async function revokeTokenHandler(ex: Exchange, ctx: RequestContext): Promise<void> {
  await ctx.auth.revoke(ctx.params[0]!);
  ex.sendEmpty(204);
}
