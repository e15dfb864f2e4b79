/** Access tokens: A7–A9 of protocol.md §2.2. The issued secret comes back wrapped. */
import { clientError, clientFail } from "../errors.js";
import { checkName } from "../rules/names.js";
import type { AccessTokenInfo, ListOptions, Page } from "../types.js";
import type { Caller } from "./caller.js";
import { query, seg } from "./endpoints.js";
import { type ListAllOptions, paginate } from "./paginate.js";
import { Redacted } from "./redacted.js";

interface ListTokensResponse {
  access_tokens?: AccessTokenInfo[];
  has_more?: boolean;
}

export class AccessTokensApi {
  /** @internal made by the client tree, not by its users */
  constructor(
    private readonly caller: Caller,
    private readonly base: string,
  ) {}

  async list(opts: ListOptions = {}): Promise<Page<AccessTokenInfo>> {
    const q = query({ prefix: opts.prefix, start_after: opts.startAfter, limit: opts.limit });
    const res = await this.caller.json<ListTokensResponse>({
      method: "GET",
      url: `${this.base}/access-tokens${q}`,
      idempotent: true,
    });
    if (!res.data || !Array.isArray(res.data.access_tokens))
      throw clientError("protocol", "list-access-tokens response has no `access_tokens` array");
    return { items: res.data.access_tokens, hasMore: res.data.has_more === true };
  }

  listAll(opts: ListAllOptions<AccessTokenInfo> = {}): AsyncGenerator<AccessTokenInfo> {
    return paginate(
      (o) => this.list(o),
      (t) => t.id,
      opts,
    );
  }

  /** Not retried after an ambiguous failure: a replay would fail with 409 and lose the secret. */
  async issue(info: AccessTokenInfo): Promise<Redacted> {
    checkName("token", info.id, clientFail("usage"));
    const res = await this.caller.json<{ access_token?: unknown }>({
      method: "POST",
      url: `${this.base}/access-tokens`,
      body: info,
      idempotent: false,
    });
    const token = res.data?.access_token;
    if (typeof token !== "string") throw clientError("protocol", "issue-access-token response has no `access_token`");
    return new Redacted(token);
  }

  async revoke(id: string): Promise<void> {
    checkName("token", id, clientFail("usage"));
    await this.caller.json({ method: "DELETE", url: `${this.base}/access-tokens/${seg(id)}`, idempotent: true });
  }
}
