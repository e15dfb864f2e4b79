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

  /** @internal made by the client tree, not by its users */
  constructor(
    private readonly caller: Caller,
    accountBase: string,
  ) {
    this.url = `${accountBase.replace(/\/v1$/, "")}/ping`;
  }

  /** Each node of a list of endpoints, asked once (`GET /ping`, on that node only): its time, or its error code. */
  async pingEach(): Promise<{ node: string; ms?: number; error?: string }[]> {
    const out: { node: string; ms?: number; error?: string }[] = [];
    for (const url of this.caller.nodes(this.url)) {
      const node = url.replace(/\/ping$/, "");
      const started = performance.now();
      try {
        await this.caller.rawAt({ method: "GET", url, headers: { accept: "*/*" }, idempotent: true });
        out.push({ node, ms: performance.now() - started });
      } catch (e) {
        out.push({ node, error: (e as { code?: string }).code ?? "error" });
      }
    }
    return out;
  }

  /** One GET /ping; a non-2xx answer rejects with an SvcError carrying its status, as any request. */
  async ping(): Promise<PingReply> {
    const started = performance.now();
    const res = await this.caller.raw({ method: "GET", url: this.url, headers: { accept: "*/*" }, idempotent: true });
    return { status: res.status, headers: res.headers, ms: performance.now() - started };
  }
}
