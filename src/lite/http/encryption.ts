/**
 * §8.8 at the HTTP edge: the request's key for an encrypted stream, appends sealed before
 * they are sequenced, and reads opened as they are served. Plaintext streams pass untouched
 * (a key sent for them is ignored).
 */
import type { AppendInput, SequencedRecord } from "../../types.js";
import { cipherReady, recordOpener, requestKey, sealRecords, streamAad } from "../crypto/record-cipher.js";
import type { StreamMeta } from "../storage/types.js";
import type { LiveStream } from "../store/live-stream.js";
import type { Exchange } from "./exchange.js";

export interface StreamCrypto {
  seal(input: AppendInput): AppendInput;
  open: ((r: SequencedRecord) => SequencedRecord) | undefined;
}

const PLAIN: StreamCrypto = { seal: (input) => input, open: undefined };

/**
 * For `store.stream`'s `admit`: refuses (400 bad_header) to auto-create an encrypted stream
 * for a request without a well-formed key, as it would refuse the request once created.
 */
export function admitNew(ex: Exchange): (meta: StreamMeta) => void {
  return (meta) => void requestKey(ex.dialectHeader("encryption-key"), meta.cipher, ex.dialectNames("encryption-key").join(" or "));
}

/** Throws 400 bad_header for a missing or malformed key on an encrypted stream. */
export async function streamCrypto(ex: Exchange, state: LiveStream): Promise<StreamCrypto> {
  const cipher = state.meta.cipher;
  const key = requestKey(ex.dialectHeader("encryption-key"), cipher, ex.dialectNames("encryption-key").join(" or "));
  if (!cipher || !key) return PLAIN;
  await cipherReady(cipher);
  const aad = streamAad(state.meta.basin, state.meta.name, state.meta.id);
  return {
    seal: (input) => ({ ...input, records: sealRecords(cipher, key, aad, input.records) }),
    open: recordOpener(key, aad),
  };
}
