/**
 * `GET /ping` at the root of the account endpoint (protocol.md §2.1: a non-API path, `200 OK`
 * on the reference server and on svc lite), timed. svc lite names itself in a
 * `svc-lite-version` header there; another server may answer 404 (no such path), which is
 * still an answer: the server is reachable.
 */
import type { Caller } from "./caller.js";

export interface PingReply {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** Request to complete response, in ms (performance.now resolution). */
  ms: number;
}

export class PingApi {
  /** The account endpoint without its `/v1`. */
  readonly url: string;

  constructor(
    private readonly caller: Caller,
    accountBase: string,
  ) {
    this.url = `${accountBase.replace(/\/v1$/, "")}/ping`;
  }

  /** One GET /ping; a non-2xx answer rejects with an SvcError carrying its status, as any request. */
  async ping(): Promise<PingReply> {
    const started = performance.now();
    const res = await this.caller.raw({ method: "GET", url: this.url, headers: { accept: "*/*" }, idempotent: true });
    return { status: res.status, headers: res.headers, ms: performance.now() - started };
  }
}
