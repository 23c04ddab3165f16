export { AuthService, OPEN_CREDENTIAL, type AuthOptions, type Credential } from "./service.ts";
export { PairingGate, type PairingAttempt } from "./pairing.ts";
