/**
 * Stream encryption with client-supplied keys (protocol.md §8.8). A basin's
 * `stream_cipher` is recorded on the streams created afterwards; appends and reads on them
 * carry `svc-encryption-key: <base64 of 32 bytes>`. The key lives only for the request: it is
 * never stored, logged or echoed.
 *
 * At rest, every record except command records is stored as one opaque body and no headers:
 *
 *   body = cipher id (1) · nonce · seal(plaintext, aad = basin 0x00 stream 0x00 stream id)
 *   plaintext = u32 header count · (u32 name len · name · u32 value len · value)* · body
 *
 * aes-256-gcm (node:crypto): 12-byte random nonce, 16-byte tag at the end. aegis-256
 * (libsodium, loaded on first use): 32-byte random nonce, 32-byte tag at the end.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { serverError } from "../../errors.js";
import { isCommandRecord } from "../../rules/commands.js";
import { ENCRYPTION_KEY_BYTES, isEncryptionKeyText } from "../../rules/encryption-key.js";
import type { AppendRecord, Header, SequencedRecord, StreamCipher } from "../../types.js";

const KEY_HEADER = "svc-encryption-key";
const ID: Record<StreamCipher, number> = { "aes-256-gcm": 1, "aegis-256": 2 };

interface Sodium {
  crypto_aead_aegis256_encrypt(
    m: Uint8Array,
    ad: Uint8Array,
    nsec: null,
    npub: Uint8Array,
    key: Uint8Array,
  ): Uint8Array;
  crypto_aead_aegis256_decrypt(
    nsec: null,
    c: Uint8Array,
    ad: Uint8Array,
    npub: Uint8Array,
    key: Uint8Array,
  ): Uint8Array;
}
let sodium: Sodium | undefined;

/** Loads libsodium once (needed before aegis-256 is used synchronously). */
export async function cipherReady(cipher: StreamCipher): Promise<void> {
  if (cipher !== "aegis-256" || sodium) return;
  const mod = (await import("libsodium-wrappers-sumo")).default;
  await mod.ready;
  sodium = mod as unknown as Sodium;
}

/**
 * The key of a request on a stream with `cipher` (null: plaintext, any key is ignored).
 * Missing, not base64, or not 32 bytes → 400 bad_header; the value is never echoed.
 */
export function requestKey(
  value: string | undefined,
  cipher: StreamCipher | null | undefined,
  header = KEY_HEADER,
): Buffer | undefined {
  if (!cipher) return undefined;
  if (value === undefined || value === "")
    throw serverError(
      "bad_header",
      `missing encryption key: the stream is encrypted (${cipher}); send ${header}: <base64 of a 32-byte key>`,
    );
  if (!isEncryptionKeyText(value)) {
    const base64 = /^[A-Za-z0-9+/]*={0,2}$/.test(value) && value.length % 4 === 0 && value.length <= 88;
    const size = base64 ? ` (this one is ${Buffer.from(value, "base64").length} bytes)` : "";
    throw serverError("bad_header", `${header} must be the base64 of a ${ENCRYPTION_KEY_BYTES}-byte key${size}`);
  }
  return Buffer.from(value, "base64");
}

export function streamAad(basin: string, stream: string, id: number): Buffer {
  return Buffer.from(`${basin}\u0000${stream}\u0000${id}`, "utf8");
}

function pack(headers: Header[], body: Uint8Array): Buffer {
  let size = 4 + body.length;
  for (const h of headers) size += 8 + h.name.length + h.value.length;
  const out = Buffer.allocUnsafe(size);
  let at = out.writeUInt32BE(headers.length, 0);
  for (const h of headers) {
    at = out.writeUInt32BE(h.name.length, at);
    out.set(h.name, at);
    at = out.writeUInt32BE(h.value.length, at + h.name.length);
    out.set(h.value, at);
    at += h.value.length;
  }
  out.set(body, at);
  return out;
}

function unpack(plain: Buffer): { headers: Header[]; body: Uint8Array } {
  const headers: Header[] = [];
  let at = 4;
  for (let n = plain.readUInt32BE(0); n > 0; n--) {
    const nameLen = plain.readUInt32BE(at);
    const name = plain.subarray(at + 4, at + 4 + nameLen);
    at += 4 + nameLen;
    const valueLen = plain.readUInt32BE(at);
    headers.push({ name, value: plain.subarray(at + 4, at + 4 + valueLen) });
    at += 4 + valueLen;
  }
  return { headers, body: plain.subarray(at) };
}

function seal(cipher: StreamCipher, key: Buffer, aad: Buffer, plain: Buffer): Buffer {
  if (cipher === "aes-256-gcm") {
    const nonce = randomBytes(12);
    const c = createCipheriv("aes-256-gcm", key, nonce).setAAD(aad);
    const body = c.update(plain);
    const rest = c.final();
    return Buffer.concat([Buffer.of(ID[cipher]), nonce, body, rest, c.getAuthTag()]);
  }
  const nonce = randomBytes(32);
  return Buffer.concat([
    Buffer.of(ID[cipher]),
    nonce,
    sodium!.crypto_aead_aegis256_encrypt(plain, aad, null, nonce, key),
  ]);
}

const failed = (): Error =>
  serverError("decryption_failed", "the records could not be decrypted: wrong encryption key");

function open(key: Buffer, aad: Buffer, sealed: Uint8Array): Buffer {
  const buf = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  try {
    if (buf[0] === ID["aes-256-gcm"] && buf.length >= 29) {
      const d = createDecipheriv("aes-256-gcm", key, buf.subarray(1, 13)).setAAD(aad);
      d.setAuthTag(buf.subarray(buf.length - 16));
      return Buffer.concat([d.update(buf.subarray(13, buf.length - 16)), d.final()]);
    }
    if (buf[0] === ID["aegis-256"] && sodium && buf.length >= 65) {
      return Buffer.from(sodium.crypto_aead_aegis256_decrypt(null, buf.subarray(33), aad, buf.subarray(1, 33), key));
    }
  } catch {
    throw failed();
  }
  throw failed();
}

/** Encrypts every record but command records, for storage. */
export function sealRecords(cipher: StreamCipher, key: Buffer, aad: Buffer, records: AppendRecord[]): AppendRecord[] {
  return records.map((r) =>
    isCommandRecord(r) ? r : { ...r, headers: [], body: seal(cipher, key, aad, pack(r.headers, r.body)) },
  );
}

/** The reader's view of a stored record: decrypted (command records pass as they are). */
export function recordOpener(key: Buffer, aad: Buffer): (r: SequencedRecord) => SequencedRecord {
  return (r) =>
    r.headers.length > 0 ? r : { seqNum: r.seqNum, timestamp: r.timestamp, ...unpack(open(key, aad, r.body)) };
}
