/**
 * Which dialect a request is in, where an answer's content differs by dialect (a basin's scope,
 * the metrics of a basin or stream that does not exist; docs/s2.md). Most requests say it by
 * their protocol header names (exchange.ts, wire/dialect.ts); a list of basins or a metrics
 * query carries none, and is then in S2's dialect when it comes from one of S2's clients (its
 * SDKs send `User-Agent: s2-sdk-<language>/<version>`, its CLI `s2-cli/<version> …`).
 */
import { HEADER_NAMES } from "../../wire/dialect.js";
import type { Exchange } from "./exchange.js";

/** The User-Agent of S2's SDKs and CLI. */
const S2_AGENT = /^s2-(sdk|cli)\b/i;

/** True when the request names its headers as S2 does, or names none and comes from an S2 client. */
export function inS2Dialect(ex: Exchange): boolean {
  const names = ex.dialectNames("basin");
  if (names.length === 1) return names[0] === HEADER_NAMES.s2.basin;
  return S2_AGENT.test(ex.header("user-agent") ?? "");
}
