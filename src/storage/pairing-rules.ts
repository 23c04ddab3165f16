import { PrxError } from "../core/errors.ts";
import { randomCode, UNAMBIGUOUS_ALPHABET } from "../core/random-code.ts";
import { CHANNEL_PAIRING_CODE_LENGTH } from "./limits.ts";

/** A fresh code from the CSPRNG. */
export function newPairingCode(): string {
  return randomCode(UNAMBIGUOUS_ALPHABET, CHANNEL_PAIRING_CODE_LENGTH);
}

export function noPendingCode(code: string): PrxError {
  return new PrxError("NOT_FOUND", `no pending pairing request with code ${code}`, {
    status: 404,
    hint: "list pending requests with `prx channel pair list`; codes expire after an hour: ask the sender to write again",
  });
}
