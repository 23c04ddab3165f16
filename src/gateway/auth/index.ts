export { AuthService, OPEN_CREDENTIAL, type AuthOptions, type Credential } from "./service.ts";
export { MemoryPairingLockout } from "./lockout.ts";
export { PairingGate } from "./pairing.ts";
export { issuePairingCode } from "./pairing-code.ts";
export type { LockoutFailure, PairingAttempt, PairingLockout } from "./types.ts";
