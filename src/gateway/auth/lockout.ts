import { PAIRING_LOCKOUT_MS, PAIRING_MAX_FAILURES, PAIRING_MAX_TRACKED_CLIENTS } from "../limits.ts";
import type { LockoutFailure, PairingLockout } from "./types.ts";

/** This process's lockouts: the last PAIRING_MAX_TRACKED_CLIENTS clients with failures are remembered. */
export class MemoryPairingLockout implements PairingLockout {
  private readonly failures = new Map<string, { count: number; lockedUntil: number }>();

  constructor(private readonly now: () => number) {}

  lockedFor(client: string): number {
    const record = this.failures.get(client);
    if (!record || record.lockedUntil === 0) return 0;
    const left = record.lockedUntil - this.now();
    if (left > 0) return Math.ceil(left / 1000);
    this.failures.delete(client);
    return 0;
  }

  failed(client: string): LockoutFailure {
    const now = this.now();
    const count = (this.failures.get(client)?.count ?? 0) + 1;
    const lockedUntil = count >= PAIRING_MAX_FAILURES ? now + PAIRING_LOCKOUT_MS : 0;
    // re-inserted at the newest end: the oldest clients are forgotten first
    this.failures.delete(client);
    if (this.failures.size >= PAIRING_MAX_TRACKED_CLIENTS) this.failures.delete(this.failures.keys().next().value!);
    this.failures.set(client, { count, lockedUntil });
    if (lockedUntil) return { locked: true, retryAfterS: Math.ceil(PAIRING_LOCKOUT_MS / 1000) };
    return { locked: false, attemptsLeft: PAIRING_MAX_FAILURES - count };
  }

  forget(client: string): void {
    this.failures.delete(client);
  }
}
