/**
 * A local svc lite proves that it knows its root token before svc sends it that token (svc
 * finds the token by itself, in lite's default data dir, only when nothing is configured; a
 * port on 127.0.0.1 can be bound by any local user while the user's lite is down).
 *
 * On every new connection, before any request carrying the token, svc sends
 *
 *   GET /ping   svc-lite-challenge: <nonce: 32 random bytes, base64url, 43 characters>
 *
 * and lite answers 200 with
 *
 *   svc-lite-proof: hex(HMAC-SHA256(key = root token, message))
 *   message = "svc-lite-proof/v1 " nonce " " address " " port
 *
 * where address and port are the connection's server side: lite's local address and port,
 * svc's remote ones (an IPv4-mapped IPv6 address written as IPv4). Binding the proof to the
 * address and port means a program on the default port cannot pass off a proof it obtained by
 * relaying the challenge to a lite listening elsewhere. The HMAC is computed by each side
 * (node:crypto); this module holds only the shared names and the message.
 */

export const LITE_CHALLENGE_HEADER = "svc-lite-challenge";
export const LITE_PROOF_HEADER = "svc-lite-proof";
export const LITE_PROOF_PATH = "/ping";

/** A nonce lite answers: 16 to 128 base64url characters (svc sends 43). */
export function isLiteNonce(nonce: string): boolean {
  return /^[A-Za-z0-9_-]{16,128}$/.test(nonce);
}

/** `::ffff:127.0.0.1` (a dual-stack socket's view of an IPv4 peer) is 127.0.0.1. */
export function plainAddress(address: string): string {
  return address.toLowerCase().startsWith("::ffff:") && address.includes(".") ? address.slice(7) : address;
}

/** The message both sides key with the root token. */
export function liteProofMessage(nonce: string, address: string, port: number): string {
  return `svc-lite-proof/v1 ${nonce} ${plainAddress(address)} ${port}`;
}
