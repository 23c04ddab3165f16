import { then, type Awaitable } from "../../core/awaitable.ts";
import { sha256Hex } from "../../core/ids.ts";
import { randomCode, UNAMBIGUOUS_ALPHABET } from "../../core/random-code.ts";
import type { GatewayPairingStore } from "../../storage/types.ts";
import { PAIRING_CODE_LENGTH } from "../limits.ts";

/** The stored form of a code as typed: case and surrounding space do not matter. */
export function pairingCodeDigest(presented: string): string {
  return sha256Hex(presented.trim().toUpperCase());
}

/**
 * A fresh one-time code from the CSPRNG, stored (its SHA-256) in place of any previous one: the gateway at a start
 * with no token, and `prx gateway pair-code` for a running gateway (it checks every guess against the store).
 */
export function issuePairingCode(
  store: GatewayPairingStore,
  ttlMs: number,
  now: () => number,
): Awaitable<{ code: string; expiresAt: number }> {
  const code = randomCode(UNAMBIGUOUS_ALPHABET, PAIRING_CODE_LENGTH);
  const expiresAt = now() + ttlMs;
  return then(store.open(pairingCodeDigest(code), expiresAt), () => ({ code, expiresAt }));
}
