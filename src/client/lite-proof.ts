/**
 * The check a local svc lite must pass before svc sends a token to lite's default address: the
 * root token svc found by itself in lite's default data dir, or a token the user configured
 * with no endpoint (the proof: local-lite.ts). A fresh random nonce per connection, answered
 * with an HMAC of it keyed with the root token in that data dir. A server that cannot answer
 * never sees the token: the request fails with `unverified_server` (exit 3) instead.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { SvcError } from "../errors.js";
import { LITE_CHALLENGE_HEADER, LITE_PROOF_HEADER, LITE_PROOF_PATH, liteProof } from "../local-lite.js";
import type { PeerCheck } from "../transport/types.js";
import { Redacted } from "./redacted.js";

export interface LiteProofOptions {
  /** The file holding lite's root token, for the error message. */
  tokenFile: string;
  /** The root token the proof is keyed with, when the token sent is another one. @default the token sent */
  rootToken?: string | Redacted;
  /** Where the token sent came from (`env SVC_ACCESS_TOKEN`), when it is not the root token of `tokenFile`. */
  tokenSource?: string;
}

export function liteProofCheck(token: Redacted, opts: LiteProofOptions): PeerCheck {
  const key = Redacted.from(opts.rootToken) ?? token;
  const withheld =
    opts.tokenSource === undefined
      ? `the root token in ${opts.tokenFile}`
      : `the access token from ${opts.tokenSource}`;
  return {
    path: LITE_PROOF_PATH,
    challenge(address, port) {
      const nonce = randomBytes(32).toString("base64url");
      const expected = Buffer.from(liteProof(key.reveal(), nonce, address, port), "hex");
      return {
        headers: { [LITE_CHALLENGE_HEADER]: nonce },
        accept(headers) {
          const proof = headers[LITE_PROOF_HEADER];
          if (proof === undefined || !/^[0-9a-f]{64}$/.test(proof)) return false;
          return timingSafeEqual(Buffer.from(proof, "hex"), expected);
        },
      };
    },
    refused(origin, why) {
      return new SvcError({
        code: "unverified_server",
        origin: "client",
        retryable: false,
        sideEffects: false,
        message: `the server at ${origin} could not prove that it is your svc lite (${why}), so ${withheld} was not sent to it`,
      });
    },
  };
}
