/**
 * The client's single road to the network: builds headers (auth, user agent), loads the
 * transport lazily (undici costs ~150 ms to import, and `svc --help` must not pay it), and
 * decodes JSON bodies with safe-integer checks.
 */
import { clientError } from "../errors.js";
import type { HttpRequest, HttpResponse, Transport } from "../transport/index.js";
import { parseJsonText } from "../wire/json.js";
import type { Redacted } from "./redacted.js";

export interface CallerOptions {
  accessToken?: Redacted;
  /** Per-attempt timeout in ms (default 30 s). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 2). */
  retries?: number;
  insecure?: boolean;
  userAgent?: string;
  /** Verbose request log (token never included). */
  log?: (line: string) => void;
  /** Unary HTTP client: node:http (default, cheap to load in one-shot processes) or undici. */
  httpClient?: "node" | "undici";
  /** Session compression: advertised in Accept-Encoding and used for our own frames (default none). */
  compression?: "none" | "zstd" | "gzip";
  /** A ready transport (tests); otherwise one is created on first use. */
  transport?: Transport;
}

export interface JsonRequest {
  method: HttpRequest["method"];
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
  idempotent: boolean;
}

export interface JsonResponse<T> {
  status: number;
  headers: Record<string, string>;
  data: T;
}

export class Caller {
  private transport: Transport | undefined;
  private loading: Promise<Transport> | undefined;

  constructor(private readonly opts: CallerOptions) {
    this.transport = opts.transport;
  }

  private async getTransport(): Promise<Transport> {
    if (this.transport) return this.transport;
    this.loading ??= import("../transport/index.js")
      .then(({ createTransport }) => createTransport({
        client: this.opts.httpClient,
        timeoutMs: this.opts.timeoutMs,
        retries: this.opts.retries,
        insecure: this.opts.insecure,
        log: this.opts.log,
        headers: () => this.baseHeaders(),
      }))
      .then((t) => (this.transport = t));
    return this.loading;
  }

  private baseHeaders(): Record<string, string> {
    const h: Record<string, string> = { "user-agent": this.opts.userAgent ?? "svc" };
    const token = this.opts.accessToken?.reveal();
    if (token) h.authorization = `Bearer ${token}`;
    return h;
  }

  /** A raw request (binary bodies, protobuf). Headers of `opts.transport` tests are merged here too. */
  async raw(req: HttpRequest): Promise<HttpResponse> {
    const t = await this.getTransport();
    const headers = this.opts.transport ? { ...this.baseHeaders(), ...req.headers } : req.headers;
    return t.request({ ...req, headers });
  }

  async json<T>(req: JsonRequest): Promise<JsonResponse<T>> {
    const headers: Record<string, string> = { accept: "application/json", ...req.headers };
    let body: string | undefined;
    if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers["content-type"] = "application/json";
    }
    const res = await this.raw({ method: req.method, url: req.url, headers, body, idempotent: req.idempotent });
    return { status: res.status, headers: res.headers, data: decodeJson(res.body) as T };
  }

  /** Headers every request carries (auth, user agent), for session requests made outside the transport. */
  sessionHeaders(): Record<string, string> {
    return this.baseHeaders();
  }

  /** Session compression chosen by the user (none unless configured). */
  get compression(): "none" | "zstd" | "gzip" {
    return this.opts.compression ?? "none";
  }

  /** Per-request timeout in ms, for session requests. */
  get timeoutMs(): number | undefined {
    return this.opts.timeoutMs;
  }

  async close(): Promise<void> {
    if (this.transport && !this.opts.transport) await this.transport.close();
  }
}

function decodeJson(body: Uint8Array): unknown {
  if (body.length === 0) return undefined;
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8");
  try {
    return parseJsonText(text);
  } catch (e) {
    throw clientError("protocol", `the server sent a malformed JSON body: ${(e as Error).message}`, e);
  }
}
