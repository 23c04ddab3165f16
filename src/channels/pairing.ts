/**
 * Who may talk to the assistant on each channel lives in src/storage (every process sees an approval at once): an
 * unknown sender gets a pending code; the owner approves it (`prx channel pair approve`, the API).
 */
export { SqlitePairingStore as PairingStore } from "../storage/sqlite/pairings.ts";
export type { PairingRecord } from "../storage/types.ts";
