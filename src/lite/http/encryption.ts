/**
 * What a request brings to its stream at the HTTP edge: §8.8's key for an encrypted stream
 * (appends sealed before they are sequenced, reads opened as they are served; plaintext
 * streams pass untouched, a key sent for them is ignored), and the config of a stream it
 * auto-creates (`svc-stream-config`, S2's `s2-stream-config`).
 */
import { SvcError, serverError } from "../../errors.js";
import type { AppendInput, SequencedRecord } from "../../types.js";
import { parseJsonText } from "../../wire/json.js";
import { cipherReady, recordOpener, requestKey, sealRecords, streamAad } from "../crypto/record-cipher.js";
import type { PartialStreamConfig, StreamMeta } from "../storage/types.js";
import type { LiveStream } from "../store/live-stream.js";
import { resolveStreamConfig } from "../store/stream-config.js";
import { ConfigParse, parseStreamReconfig, toPartial } from "./config-json.js";
import type { Exchange } from "./exchange.js";

export interface StreamCrypto {
  seal(input: AppendInput): AppendInput;
  open: ((r: SequencedRecord) => SequencedRecord) | undefined;
}

/** A plaintext stream's (and a request that touches no record's): nothing to seal or open. */
export const PLAIN: StreamCrypto = { seal: (input) => input, open: undefined };

/**
 * For `store.stream`'s `admit`, which sees a stream about to be auto-created (§10.3): its
 * config becomes the request's `svc-stream-config` (a StreamConfig as JSON, over the basin's
 * defaults; S2 sends it as `s2-stream-config`; ignored when the stream exists), and a request
 * without a well-formed key for its cipher is refused (400 bad_header), as it would be once
 * the stream existed; `records: false` (check-tail) touches no record, so it needs no key.
 *
 * Choosing a stream's config (its retention, delete-on-empty, timestamping) is the power of
 * `create-stream`: a token that may only append, read or check the tail would otherwise
 * pre-create tomorrow's stream with records expiring after a second. So the header is honoured
 * only when `mayCreate` passes for the stream (it throws 403 otherwise); a request without
 * it auto-creates with the basin's defaults, as before.
 */
export function admitNew(ex: Exchange, mayCreate: () => void, records = true): (meta: StreamMeta) => void {
  return (meta) => {
    if (ex.dialectHeader("stream-config") !== undefined) mayChooseConfig(ex, mayCreate);
    const requested = requestedConfig(ex);
    if (requested) meta.config = resolveStreamConfig(requested, meta.config);
    if (records && meta.cipher) void requestKey(ex.dialectHeader("encryption-key"), meta.cipher, keyName(ex));
  };
}

function mayChooseConfig(ex: Exchange, mayCreate: () => void): void {
  try {
    mayCreate();
  } catch (e) {
    if (!(e instanceof SvcError) || e.code !== "permission_denied") throw e;
    const name = ex.dialectNames("stream-config").join(" or ");
    throw serverError(
      "permission_denied",
      `${name} chooses the config of the stream this request would create, which needs \`create-stream\` (send the request without it to create the stream with the basin's defaults): ${e.message}`,
    );
  }
}

/** The stream config header, parsed as a create-stream body's `config`: shape errors are 400 bad_header, `age: 0` 422. */
function requestedConfig(ex: Exchange): PartialStreamConfig | undefined {
  const value = ex.dialectHeader("stream-config");
  if (value === undefined) return undefined;
  const name = ex.dialectNames("stream-config").join(" or ");
  const p = new ConfigParse();
  try {
    const requested = toPartial(parseStreamReconfig(p, parseJsonText(value)));
    p.finish();
    return requested;
  } catch (e) {
    if (e instanceof SvcError && e.status === 400) throw serverError("bad_header", `${name}: ${e.message}`);
    throw e;
  }
}

/** Throws 400 bad_header for a missing or malformed key on an encrypted stream. */
export async function streamCrypto(ex: Exchange, state: LiveStream): Promise<StreamCrypto> {
  const cipher = state.meta.cipher;
  if (!cipher) return PLAIN;
  const key = requestKey(ex.dialectHeader("encryption-key"), cipher, keyName(ex));
  if (!key) return PLAIN;
  await cipherReady(cipher);
  const aad = streamAad(state.meta.basin, state.meta.name, state.meta.id);
  return {
    seal: (input) => ({ ...input, records: sealRecords(cipher, key, aad, input.records) }),
    open: recordOpener(key, aad),
  };
}

/** The key header as the request would name it (for messages). */
function keyName(ex: Exchange): string {
  return ex.dialectNames("encryption-key").join(" or ");
}
