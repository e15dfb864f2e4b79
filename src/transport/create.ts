/**
 * The one way to make a unary transport: node:http (the default; cheap to load) or undici
 * (`client: "undici"`), loading only the one it uses. Sessions live in session.ts (HTTP/2).
 */
import { missingPackage } from "../errors.js";
import type { Transport, TransportOptions } from "./types.js";

type HttpClientKind = "node" | "undici";

export async function createTransport(opts: TransportOptions & { client?: HttpClientKind }): Promise<Transport> {
  if (opts.client === "undici") {
    const { HttpTransport } = await import("./http.js").catch((e: unknown) => {
      throw missingPackage(e, "undici", 'httpClient: "undici"');
    });
    return new HttpTransport(opts);
  }
  const { NodeHttpTransport } = await import("./node-http.js");
  return new NodeHttpTransport(opts);
}
