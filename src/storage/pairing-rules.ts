import { randomInt } from "node:crypto";
import { PrxError } from "../core/errors.ts";
import { CHANNEL_PAIRING_CODE_LENGTH } from "./limits.ts";

/** No 0/O, 1/I/L: a code read aloud or typed from a phone is not mistaken. */
const ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

export function newPairingCode(): string {
  let code = "";
  for (let i = 0; i < CHANNEL_PAIRING_CODE_LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

export function noPendingCode(code: string): PrxError {
  return new PrxError("NOT_FOUND", `no pending pairing request with code ${code}`, {
    status: 404,
    hint: "list pending requests with `prx channel pair list`; codes expire after an hour: ask the sender to write again",
  });
}
