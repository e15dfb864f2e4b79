/**
 * The check a local svc lite must pass before svc sends it the root token that svc found by
 * itself in lite's default data dir (the proof: local-lite.ts): a fresh random nonce per
 * connection, answered with an HMAC of it keyed with that token. A server that cannot answer
 * never sees the token: the request fails with `unverified_server` (exit 3) instead.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { SvcError } from "../errors.js";
import type { PeerCheck } from "../transport/types.js";
import { LITE_CHALLENGE_HEADER, LITE_PROOF_HEADER, LITE_PROOF_PATH, liteProof } from "../local-lite.js";
import type { Redacted } from "./redacted.js";

export interface LiteProofOptions {
  /** The file the token came from, for the error message. */
  tokenFile: string;
}

export function liteProofCheck(token: Redacted, opts: LiteProofOptions): PeerCheck {
  return {
    path: LITE_PROOF_PATH,
    challenge(address, port) {
      const nonce = randomBytes(32).toString("base64url");
      const expected = Buffer.from(liteProof(token.reveal(), nonce, address, port), "hex");
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
        message: `the server at ${origin} could not prove that it is your svc lite (${why}), so the root token in ${opts.tokenFile} was not sent to it`,
      });
    },
  };
}
