/**
 * What svc and a local svc lite agree on without being told: where lite listens by default,
 * where it keeps its data and its root token, and the proof it gives before svc sends it that
 * token. Both faces import this one module (the CLI: the endpoint and token it uses when nothing
 * is configured; the client: the proof it asks for; lite: its defaults and the proof it gives),
 * so that a default changed here changes on both sides at once.
 *
 * The proof. svc finds the root token by itself, in lite's default data dir, only when nothing
 * is configured; a port on 127.0.0.1 can be bound by any local user while the user's lite is
 * down, so a local lite proves that it knows the token before svc sends it. On every new
 * connection, before any request carrying the token, svc sends
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
 * relaying the challenge to a lite listening elsewhere.
 *
 * Pure: names, paths and one HMAC; node:os only for the home directory of the default data dir.
 */
import { createHmac } from "node:crypto";
import { homedir } from "node:os";
import { join } from "node:path";

/** The address and port a local lite listens on unless told otherwise (`--host`, `--port`). */
export const LOCAL_LITE_HOST = "127.0.0.1";
export const LOCAL_LITE_PORT = 4243;
/** The endpoint svc uses when none is configured: the local lite's default address. */
export const LOCAL_LITE_ENDPOINT = `http://${LOCAL_LITE_HOST}:${LOCAL_LITE_PORT}`;

/** The file in lite's data dir holding its root token (written 0600 by lite). */
export const ROOT_TOKEN_FILE = "root-token";

/** The data dir a lite uses without `--data-dir`, and in which svc looks for the root token. */
export function localLiteDataDir(env: { XDG_DATA_HOME?: string | undefined; HOME?: string | undefined }): string {
  const base = env.XDG_DATA_HOME || join(env.HOME || homedir(), ".local", "share");
  return join(base, "svc", "lite");
}

/** How the default data dir is written for people (help, docs). */
export const LOCAL_LITE_DATA_DIR_TEXT = "$XDG_DATA_HOME/svc/lite, else ~/.local/share/svc/lite";

export const LITE_CHALLENGE_HEADER = "svc-lite-challenge";
export const LITE_PROOF_HEADER = "svc-lite-proof";
export const LITE_PROOF_PATH = "/ping";

/** A nonce lite answers: 16 to 128 base64url characters (svc sends 43). */
export function isLiteNonce(nonce: string): boolean {
  return /^[A-Za-z0-9_-]{16,128}$/.test(nonce);
}

/** `::ffff:127.0.0.1` (a dual-stack socket's view of an IPv4 peer) is 127.0.0.1. */
function plainAddress(address: string): string {
  return address.toLowerCase().startsWith("::ffff:") && address.includes(".") ? address.slice(7) : address;
}

/** The proof of knowing `rootToken` for `nonce` on the connection whose server side is address:port, hex. */
export function liteProof(rootToken: string, nonce: string, address: string, port: number): string {
  return createHmac("sha256", rootToken)
    .update(`svc-lite-proof/v1 ${nonce} ${plainAddress(address)} ${port}`, "utf8")
    .digest("hex");
}
