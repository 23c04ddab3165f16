import { constantTimeEqual } from "../../core/constant-time.ts";
import { sha256Hex } from "../../core/ids.ts";
import { randomCode } from "../../core/random-code.ts";
import {
  PAIRING_CODE_DIGITS,
  PAIRING_LOCKOUT_MS,
  PAIRING_MAX_FAILURES,
  PAIRING_MAX_TRACKED_CLIENTS,
} from "../limits.ts";

export type PairingAttempt =
  | { ok: true }
  | { ok: false; reason: "locked"; retryAfterS: number }
  | { ok: false; reason: "closed" }
  | { ok: false; reason: "wrong"; attemptsLeft: number };

/**
 * The one-time pairing code: a CSPRNG 6-digit code with an expiry, compared in constant time, consumed on
 * first success. Clients that send PAIRING_MAX_FAILURES wrong codes are locked out for PAIRING_LOCKOUT_MS.
 */
export class PairingGate {
  private code: { digest: string; expiresAt: number } | null = null;
  private readonly failures = new Map<string, { count: number; lockedUntil: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  /** Issue a fresh code (replacing any previous one). */
  issue(): { code: string; expiresAt: number } {
    const code = randomCode("0123456789", PAIRING_CODE_DIGITS);
    const expiresAt = this.now() + this.ttlMs;
    this.code = { digest: sha256Hex(code), expiresAt };
    return { code, expiresAt };
  }

  isOpen(): boolean {
    return this.code !== null && this.now() < this.code.expiresAt;
  }

  close(): void {
    this.code = null;
  }

  attempt(client: string, presented: string): PairingAttempt {
    const now = this.now();
    const record = this.failures.get(client);
    if (record && record.lockedUntil > now) {
      return { ok: false, reason: "locked", retryAfterS: Math.ceil((record.lockedUntil - now) / 1000) };
    }
    if (record && record.lockedUntil !== 0) this.failures.delete(client);
    const candidate = sha256Hex(presented);
    const current = this.code;
    const matches = current !== null && now < current.expiresAt && constantTimeEqual(candidate, current.digest);
    if (matches) {
      this.code = null;
      this.failures.delete(client);
      return { ok: true };
    }
    const count = (this.failures.get(client)?.count ?? 0) + 1;
    const lockedUntil = count >= PAIRING_MAX_FAILURES ? now + PAIRING_LOCKOUT_MS : 0;
    this.failures.delete(client);
    if (this.failures.size >= PAIRING_MAX_TRACKED_CLIENTS) this.failures.delete(this.failures.keys().next().value!);
    this.failures.set(client, { count, lockedUntil });
    if (lockedUntil) return { ok: false, reason: "locked", retryAfterS: Math.ceil(PAIRING_LOCKOUT_MS / 1000) };
    if (!current || now >= current.expiresAt) return { ok: false, reason: "closed" };
    return { ok: false, reason: "wrong", attemptsLeft: PAIRING_MAX_FAILURES - count };
  }
}
