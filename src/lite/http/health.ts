/**
 * `GET /health` and `GET /ping`: open to anyone, `200 OK`, with a `svc-lite-version` header
 * naming the server (`svc ping` reads it). With an `svc-lite-challenge`
 * header lite also proves that it knows its root token (local-lite.ts): svc asks before
 * it sends the token it found in the default data dir, so a program that took the default
 * port while lite was down learns nothing. The proof is bound to the connection's local
 * address and port, and neither it nor the token is ever logged.
 */
import { isLiteNonce, LITE_CHALLENGE_HEADER, LITE_PROOF_HEADER } from "../../local-lite.js";
import type { Auth } from "../auth/access.js";
import { LITE_VERSION } from "../version.js";
import type { Exchange, Headers } from "./exchange.js";

const OK = Buffer.from("OK", "utf8");

export async function answerHealth(ex: Exchange, auth: Auth): Promise<void> {
  if (ex.method !== "GET" && ex.method !== "HEAD") return ex.sendEmpty(405, { allow: "GET, HEAD" });
  const headers: Headers = { "svc-lite-version": LITE_VERSION };
  const nonce = ex.header(LITE_CHALLENGE_HEADER);
  const socket = ex.req.socket;
  const proof =
    nonce !== undefined && isLiteNonce(nonce) && socket?.localAddress !== undefined && socket.localPort !== undefined
      ? auth.rootProof(nonce, socket.localAddress, socket.localPort)
      : undefined;
  if (proof !== undefined) headers[LITE_PROOF_HEADER] = proof;
  await ex.send(200, OK, "text/plain; charset=utf-8", headers, false);
}
