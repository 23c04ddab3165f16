import type { Awaitable } from "../../core/awaitable.ts";

export type PairingAttempt =
  | { ok: true }
  | { ok: false; reason: "locked"; retryAfterS: number }
  | { ok: false; reason: "closed" }
  /** The code took more wrong guesses (from any address) than PAIRING_CODE_MAX_WRONG: a new one must be printed. */
  | { ok: false; reason: "burned" }
  | { ok: false; reason: "wrong"; attemptsLeft: number };

/** What a wrong code from a client did to its lockout. */
export type LockoutFailure = { locked: false; attemptsLeft: number } | { locked: true; retryAfterS: number };

/**
 * The lockout of client addresses sending wrong pairing codes (this process's, or shared by replicas through Redis).
 * It slows one address down; the code's own budget of wrong guesses (the storage's) is what no address escapes.
 */
export interface PairingLockout {
  /** Seconds the client stays locked out, 0 when it may try. */
  lockedFor(client: string): Awaitable<number>;
  /** Count a wrong code from the client; PAIRING_MAX_FAILURES of them lock it out for PAIRING_LOCKOUT_MS. */
  failed(client: string): Awaitable<LockoutFailure>;
  /** The client paired: its failures are forgotten. */
  forget(client: string): Awaitable<void>;
}
