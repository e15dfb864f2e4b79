/** Account-level basin management: A1–A6 of protocol.md §2.2. */
import { clientError, clientFail } from "../errors.js";
import { checkName } from "../rules/names.js";
import type { BasinConfig, BasinInfo, ListOptions, Page } from "../types.js";
import type { Caller } from "./caller.js";
import type {
  BasinConfigWithCipher,
  BasinReconfiguration,
  CreateBasinOptions,
  Provisioned,
  ProvisionResult,
} from "./config-types.js";
import { query, seg } from "./endpoints.js";
import { type ListAllOptions, paginate } from "./paginate.js";

interface ListBasinsResponse {
  basins?: BasinInfo[];
  has_more?: boolean;
}

export class BasinsApi {
  /** @internal made by the client tree, not by its users */
  constructor(
    private readonly caller: Caller,
    private readonly base: string,
  ) {}

  async list(opts: ListOptions = {}): Promise<Page<BasinInfo>> {
    const q = query({ prefix: opts.prefix, start_after: opts.startAfter, limit: opts.limit });
    const res = await this.caller.json<ListBasinsResponse>({
      method: "GET",
      url: `${this.base}/basins${q}`,
      idempotent: true,
    });
    if (!res.data || !Array.isArray(res.data.basins))
      throw clientError("protocol", "list-basins response has no `basins` array");
    return { items: res.data.basins, hasMore: res.data.has_more === true };
  }

  listAll(opts: ListAllOptions<BasinInfo> = {}): AsyncGenerator<BasinInfo> {
    return paginate(
      (o) => this.list(o),
      (b) => b.name,
      opts,
    );
  }

  /** The list entry of one basin (its state), or undefined when it does not exist. */
  async info(name: string): Promise<BasinInfo | undefined> {
    checkName("basin", name, clientFail("usage"));
    const page = await this.list({ prefix: name, limit: 1 });
    return page.items.find((b) => b.name === name);
  }

  async create(name: string, opts: CreateBasinOptions = {}): Promise<Provisioned<BasinInfo>> {
    checkName("basin", name, clientFail("usage"));
    const body: Record<string, unknown> = { basin: name };
    if (opts.config !== undefined) body.config = opts.config;
    if (opts.scope !== undefined) body.scope = opts.scope;
    // One token per logical create, reused by every retry, makes the POST safe to re-send.
    const headers = { "svc-request-token": opts.requestToken ?? globalThis.crypto.randomUUID() };
    const res = await this.caller.json<BasinInfo>({
      method: "POST",
      url: `${this.base}/basins`,
      headers,
      body,
      idempotent: true,
    });
    return provisioned(res.status, res.headers, res.data ?? { name, state: "active", scope: null });
  }

  /** PUT: create or reconfigure. Absent fields are left unchanged. */
  async ensure(
    name: string,
    opts: { config?: BasinReconfiguration; scope?: CreateBasinOptions["scope"] } = {},
  ): Promise<Provisioned<BasinInfo>> {
    checkName("basin", name, clientFail("usage"));
    const body: Record<string, unknown> = {};
    if (opts.config !== undefined) body.config = opts.config;
    if (opts.scope !== undefined) body.scope = opts.scope;
    const res = await this.caller.json<BasinInfo>({
      method: "PUT",
      url: `${this.base}/basins/${seg(name)}`,
      body,
      idempotent: true,
    });
    return provisioned(res.status, res.headers, res.data ?? { name, state: "active", scope: null });
  }

  async getConfig(name: string): Promise<BasinConfigWithCipher> {
    checkName("basin", name, clientFail("usage"));
    const res = await this.caller.json<BasinConfig>({
      method: "GET",
      url: `${this.base}/basins/${seg(name)}`,
      idempotent: true,
    });
    return res.data ?? {};
  }

  async reconfigure(name: string, reconfiguration: BasinReconfiguration): Promise<BasinConfigWithCipher> {
    checkName("basin", name, clientFail("usage"));
    const res = await this.caller.json<BasinConfig>({
      method: "PATCH",
      url: `${this.base}/basins/${seg(name)}`,
      body: reconfiguration,
      idempotent: true,
    });
    return res.data ?? {};
  }

  /** Deletion is asynchronous: the basin turns `deleting`, then disappears. */
  async delete(name: string): Promise<void> {
    checkName("basin", name, clientFail("usage"));
    await this.caller.json({ method: "DELETE", url: `${this.base}/basins/${seg(name)}`, idempotent: true });
  }
}

export function provisioned<T>(status: number, headers: Record<string, string>, info: T): Provisioned<T> {
  const p = headers["svc-provision-result"];
  const out: Provisioned<T> = { info, status };
  if (p === "created" || p === "updated" || p === "noop") out.provision = p as ProvisionResult;
  return out;
}
