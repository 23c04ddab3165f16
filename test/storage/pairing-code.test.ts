import { expect, test } from "bun:test";
import { CHANNEL_PAIRING_CODE_LENGTH } from "../../src/storage/limits.ts";
import { newPairingCode } from "../../src/storage/pairing-rules.ts";

const ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

test(`pairing codes are ${CHANNEL_PAIRING_CODE_LENGTH} characters of the unambiguous alphabet, each of them in use`, () => {
  const seen = new Set<string>();
  for (let i = 0; i < 500; i++) {
    const code = newPairingCode();
    expect(code).toHaveLength(CHANNEL_PAIRING_CODE_LENGTH);
    for (const char of code) {
      expect(ALPHABET).toContain(char);
      seen.add(char);
    }
  }
  // 3000 draws from 31 letters: a letter never drawn would mean a skewed or cut mapping
  expect(seen.size).toBe(ALPHABET.length);
});
