/**
 * A stream's encryption key as it travels (protocol.md §8.8): the base64 of 32 bytes, padded,
 * so 44 characters ending in one `=`. svc judges a key given to it (flag, file, environment)
 * and lite the header it receives by this one rule.
 */

export const ENCRYPTION_KEY_BYTES = 32;

/** 43 base64 characters carry 258 bits: 32 bytes, and the padding that ends them. */
const KEY_TEXT = /^[A-Za-z0-9+/]{43}=$/;

/** Whether `text` is an encryption key's base64. */
export function isEncryptionKeyText(text: string): boolean {
  return KEY_TEXT.test(text);
}
