import { describe, expect, test } from "bun:test";
import { randomCode } from "../../src/core/random-code.ts";

describe("randomCode", () => {
  test("a code has the length asked for, from the alphabet only", () => {
    for (const [alphabet, length] of [["0123456789", 6], ["ABCDEFGHJKMNPQRSTUVWXYZ23456789", 8], ["x", 3]] as const) {
      const code = randomCode(alphabet, length);
      expect(code).toHaveLength(length);
      expect([...code].every((c) => alphabet.includes(c))).toBe(true);
    }
  });

  test("every character turns up about equally often: 60,000 digits, each within 20 % of 6,000", () => {
    const counts = new Map<string, number>();
    for (const c of randomCode("0123456789", 60_000)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(10);
    // (a modulo bias, byte % 10 without rejection, would be 2.3 %: below what a sample this size can show)
    for (const n of counts.values()) expect(Math.abs(n - 6000)).toBeLessThan(1200);
  });
});
