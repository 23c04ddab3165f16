import { PrxError } from "../core/errors.ts";
import { CHANNEL_PAIRING_CODE_LENGTH } from "./limits.ts";

/** No 0/O, 1/I/L: a code read aloud or typed from a phone is not mistaken. */
const ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/** Random bytes below this are used (each letter as likely as any other); the rest are drawn again. */
const UNBIASED_BELOW = 256 - (256 % ALPHABET.length);

/**
 * A fresh code from the CSPRNG. Web Crypto's getRandomValues, not node:crypto: loading node:crypto costs a few ms of
 * start-up in every process that opens the stores.
 */
export function newPairingCode(): string {
  let code = "";
  const bytes = new Uint8Array(CHANNEL_PAIRING_CODE_LENGTH * 2);
  while (code.length < CHANNEL_PAIRING_CODE_LENGTH) {
    crypto.getRandomValues(bytes);
    for (const byte of bytes) {
      if (byte >= UNBIASED_BELOW) continue;
      code += ALPHABET[byte % ALPHABET.length];
      if (code.length === CHANNEL_PAIRING_CODE_LENGTH) break;
    }
  }
  return code;
}

export function noPendingCode(code: string): PrxError {
  return new PrxError("NOT_FOUND", `no pending pairing request with code ${code}`, {
    status: 404,
    hint: "list pending requests with `prx channel pair list`; codes expire after an hour: ask the sender to write again",
  });
}
