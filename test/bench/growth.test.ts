import { describe, expect, test } from "bun:test";
import { growthExponent, growthRows, sizeLabel } from "./growth.ts";

describe("growth exponent (log-log slope of cost against size)", () => {
  test.each([0, 0.5, 1, 1.28, 2])("cost = c * n^%p gives that exponent", (k) => {
    const points = [100, 1_000, 10_000, 100_000].map((size) => ({ size, cost: 3.7 * size ** k }));
    expect(growthExponent(points)).toBeCloseTo(k, 10);
  });

  test("two sizes give the slope between them", () => {
    expect(growthExponent([{ size: 10, cost: 2 }, { size: 1000, cost: 200 }])).toBeCloseTo(1, 10);
  });

  test("needs two distinct sizes and positive costs", () => {
    expect(() => growthExponent([{ size: 10, cost: 1 }, { size: 10, cost: 2 }])).toThrow("two distinct sizes");
    expect(() => growthExponent([{ size: 10, cost: 0 }, { size: 100, cost: 2 }])).toThrow("positive sizes and costs");
  });

  test("a series prints a row per size and one for the exponent, with its targets", async () => {
    let size = 0;
    const rows = await growthRows({
      suite: "s",
      name: "cost",
      per: "entries",
      unit: "ms",
      sizes: [1_000, 1_000_000],
      grow: (n) => (size = n),
      cost: async () => size / 1000,
      target: { size: 1_000_000, op: "<=", value: 5 },
      exponentTarget: { op: "<=", value: 0.1 },
    });
    expect(rows.map((r) => [r.name, r.value, r.target?.value])).toEqual([
      ["cost @1k entries", 1, undefined],
      ["cost @1M entries", 1000, 5],
      ["cost, growth exponent over 1k -> 1M entries", expect.closeTo(1, 10), 0.1],
    ]);
    expect(sizeLabel(1_234)).toBe("1,234");
  });
});
