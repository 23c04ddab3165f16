/**
 * Which combinations of a query's terms an entry must hold to reach the score floor: sets of term indexes, each
 * weighing at least `floor` in all; every set of terms weighing that much contains one of them. A full-text index
 * can then return only the entries holding one whole set (an AND per set, an OR of the sets) instead of every entry
 * holding any term. Null when there are more than `max` sets (many terms of like weight): search by any term then.
 */
export function reachingSets(weights: readonly number[], floor: number, max: number): number[][] | null {
  const order = weights.map((_, i) => i).sort((a, b) => weights[b]! - weights[a]!);
  // what the terms from position p on weigh together: a branch that cannot reach the floor stops early
  const rest = new Array<number>(order.length + 1).fill(0);
  for (let p = order.length - 1; p >= 0; p--) rest[p] = rest[p + 1]! + weights[order[p]!]!;
  const sets: number[][] = [];
  const chosen: number[] = [];
  let tooMany = false;
  const visit = (p: number, sum: number): void => {
    if (tooMany) return;
    if (sum >= floor) {
      if (sets.length >= max) tooMany = true;
      else sets.push([...chosen].sort((a, b) => a - b));
      return;
    }
    if (p >= order.length || sum + rest[p]! < floor) return;
    chosen.push(order[p]!);
    visit(p + 1, sum + weights[order[p]!]!);
    chosen.pop();
    visit(p + 1, sum);
  };
  visit(0, 0);
  return tooMany ? null : sets;
}
