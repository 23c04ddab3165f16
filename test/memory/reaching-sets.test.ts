import { expect, test } from "bun:test";
import { reachingSets } from "../../src/memory/reaching-sets.ts";

/** Every subset of the terms (as index lists) that weighs at least `floor`. */
function reachingByBruteForce(weights: number[], floor: number): number[][] {
  const all: number[][] = [];
  for (let mask = 1; mask < 1 << weights.length; mask++) {
    const set = weights.map((_, i) => i).filter((i) => mask & (1 << i));
    if (set.reduce((sum, i) => sum + weights[i]!, 0) >= floor) all.push(set);
  }
  return all;
}

test("every combination of terms that reaches the floor holds one of the sets, and each set reaches it", () => {
  const cases: Array<[number[], number]> = [
    [[5], 2.5],
    [[5, 4, 4], 6.5],
    [[8.7, 3.9, 3.9, 8.7], 12.6],
    [[1, 2, 3, 4, 5, 6], 10.5],
    [[3, 3, 3, 3, 3], 7.5],
  ];
  for (const [weights, floor] of cases) {
    const sets = reachingSets(weights, floor, 1000)!;
    for (const set of sets) expect(set.reduce((sum, i) => sum + weights[i]!, 0)).toBeGreaterThanOrEqual(floor);
    for (const combination of reachingByBruteForce(weights, floor)) {
      expect(sets.some((set) => set.every((i) => combination.includes(i)))).toBe(true);
    }
  }
});

test("one term reaching the floor alone is a set of one; no set when the terms together fall short", () => {
  expect(reachingSets([8.7, 3.9], 6.3, 10)).toEqual([[0]]);
  expect(reachingSets([1, 1], 3, 10)).toEqual([]);
});

test("at most `max` sets: exactly max is returned, one more gives null (search by any term)", () => {
  // 4 terms of like weight, floor of two: C(4,2) = 6 sets
  expect(reachingSets([1, 1, 1, 1], 2, 6)).toHaveLength(6);
  expect(reachingSets([1, 1, 1, 1], 2, 5)).toBeNull();
});
