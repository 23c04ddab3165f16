export { AuthService, OPEN_CREDENTIAL, type AuthOptions, type Credential } from "./service.ts";
export { TokenStore, TOKEN_PREFIX, type TokenRecord } from "./tokens.ts";
export { PairingGate, type PairingAttempt } from "./pairing.ts";
