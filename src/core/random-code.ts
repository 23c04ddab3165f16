/** Letters and digits a code read aloud or typed from a phone is not mistaken in: no 0/O, 1/I/L (31 characters). */
export const UNAMBIGUOUS_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/**
 * A code of `length` characters drawn uniformly from `alphabet` (at most 256 characters) by the CSPRNG. Web Crypto's
 * getRandomValues, not node:crypto: loading node:crypto costs a few ms of start-up and ~1 MB in every process that
 * issues a code (the gateway's pairing code, the channels' pairing requests).
 */
export function randomCode(alphabet: string, length: number): string {
  // bytes at or past the last whole multiple of the alphabet's size are drawn again: each character is as likely
  const unbiasedBelow = 256 - (256 % alphabet.length);
  let code = "";
  const bytes = new Uint8Array(length * 2);
  while (code.length < length) {
    crypto.getRandomValues(bytes);
    for (const byte of bytes) {
      if (byte >= unbiasedBelow) continue;
      code += alphabet[byte % alphabet.length];
      if (code.length === length) break;
    }
  }
  return code;
}
