import { settingNow, type Setting } from "../../core/setting.ts";
import type { GatewayPairingStore } from "../../storage/types.ts";
import { PAIRING_CODE_MAX_WRONG } from "../limits.ts";
import { issuePairingCode, pairingCodeDigest } from "./pairing-code.ts";
import type { PairingAttempt, PairingLockout } from "./types.ts";

/**
 * The one-time pairing code: issued from the CSPRNG with an expiry, kept (its SHA-256) in the workspace storage,
 * compared in constant time, consumed on first success. The code survives PAIRING_CODE_MAX_WRONG wrong guesses in
 * total, whatever addresses or replicas they come through; the next wrong one burns it. A client address that
 * sends PAIRING_MAX_FAILURES wrong codes is also locked out for PAIRING_LOCKOUT_MS.
 */
export class PairingGate {
  constructor(
    private readonly store: GatewayPairingStore,
    private readonly lockout: PairingLockout,
    private readonly ttlMs: Setting<number>,
    private readonly now: () => number,
  ) {}

  /** Issue a fresh code (replacing any previous one, wherever it was issued). */
  async issue(): Promise<{ code: string; expiresAt: number }> {
    return issuePairingCode(this.store, settingNow(this.ttlMs), this.now);
  }

  async attempt(client: string, presented: string): Promise<PairingAttempt> {
    const lockedFor = await this.lockout.lockedFor(client);
    if (lockedFor > 0) return { ok: false, reason: "locked", retryAfterS: lockedFor };
    const guess = await this.store.guess(pairingCodeDigest(presented), PAIRING_CODE_MAX_WRONG);
    if (guess.outcome === "ok") {
      await this.lockout.forget(client);
      return { ok: true };
    }
    // every refused guess counts against the address; a burned code is said first (waiting does not help then)
    const failure = await this.lockout.failed(client);
    if (guess.outcome === "burned") return { ok: false, reason: "burned" };
    if (failure.locked) return { ok: false, reason: "locked", retryAfterS: failure.retryAfterS };
    if (guess.outcome === "closed") return { ok: false, reason: "closed" };
    return { ok: false, reason: "wrong", attemptsLeft: failure.attemptsLeft };
  }
}
