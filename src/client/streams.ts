/** Basin-level stream management: B1–B6 of protocol.md §2.3. */
import { clientError, clientFail } from "../errors.js";
import { checkName } from "../rules/names.js";
import type { ListOptions, Page, StreamConfig, StreamInfo } from "../types.js";
import { provisioned } from "./basins.js";
import type { Caller } from "./caller.js";
import type { CreateStreamOptions, Provisioned, StreamReconfiguration } from "./config-types.js";
import { type BasinRoute, query, seg } from "./endpoints.js";
import { type ListAllOptions, paginate } from "./paginate.js";

interface ListStreamsResponse {
  streams?: StreamInfo[];
  has_more?: boolean;
}

export class StreamsApi {
  /** @internal made by the client tree, not by its users */
  constructor(
    private readonly caller: Caller,
    private readonly route: BasinRoute,
  ) {}

  private url(path: string): string {
    return `${this.route.base}${path}`;
  }

  async list(opts: ListOptions = {}): Promise<Page<StreamInfo>> {
    const q = query({ prefix: opts.prefix, start_after: opts.startAfter, limit: opts.limit });
    const res = await this.caller.json<ListStreamsResponse>({
      method: "GET",
      url: this.url(`/streams${q}`),
      headers: this.route.headers,
      idempotent: true,
    });
    if (!res.data || !Array.isArray(res.data.streams))
      throw clientError("protocol", "list-streams response has no `streams` array");
    return { items: res.data.streams, hasMore: res.data.has_more === true };
  }

  listAll(opts: ListAllOptions<StreamInfo> = {}): AsyncGenerator<StreamInfo> {
    return paginate(
      (o) => this.list(o),
      (s) => s.name,
      opts,
    );
  }

  async create(name: string, opts: CreateStreamOptions = {}): Promise<Provisioned<StreamInfo>> {
    checkName("stream", name, clientFail("usage"));
    const body: Record<string, unknown> = { stream: name };
    if (opts.config !== undefined) body.config = opts.config;
    const headers = { ...this.route.headers, "svc-request-token": opts.requestToken ?? globalThis.crypto.randomUUID() };
    const res = await this.caller.json<StreamInfo>({
      method: "POST",
      url: this.url("/streams"),
      headers,
      body,
      idempotent: true,
    });
    return provisioned(res.status, res.headers, res.data ?? { name, created_at: "" });
  }

  /** PUT: create or reconfigure; given fields are applied on top of the current config. */
  async ensure(name: string, config: StreamReconfiguration = {}): Promise<Provisioned<StreamInfo>> {
    checkName("stream", name, clientFail("usage"));
    const res = await this.caller.json<StreamInfo>({
      method: "PUT",
      url: this.url(`/streams/${seg(name)}`),
      headers: this.route.headers,
      body: config,
      idempotent: true,
    });
    return provisioned(res.status, res.headers, res.data ?? { name, created_at: "" });
  }

  async getConfig(name: string): Promise<StreamConfig> {
    checkName("stream", name, clientFail("usage"));
    const res = await this.caller.json<StreamConfig>({
      method: "GET",
      url: this.url(`/streams/${seg(name)}`),
      headers: this.route.headers,
      idempotent: true,
    });
    return res.data ?? {};
  }

  async reconfigure(name: string, reconfiguration: StreamReconfiguration): Promise<StreamConfig> {
    checkName("stream", name, clientFail("usage"));
    const res = await this.caller.json<StreamConfig>({
      method: "PATCH",
      url: this.url(`/streams/${seg(name)}`),
      headers: this.route.headers,
      body: reconfiguration,
      idempotent: true,
    });
    return res.data ?? {};
  }

  async delete(name: string): Promise<void> {
    checkName("stream", name, clientFail("usage"));
    await this.caller.json({
      method: "DELETE",
      url: this.url(`/streams/${seg(name)}`),
      headers: this.route.headers,
      idempotent: true,
    });
  }
}
