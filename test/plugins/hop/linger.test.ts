import { describe, expect, test } from "bun:test";
import { Linger, LINGER_MAX_SKIPS } from "../../../src/plugins/hop/index.ts";

/** A Linger whose watches run when the test says (`turn()`), on a machine of `cpus` CPUs. */
function lingerOn(windowUs = 100, cpus = 2, maxSkips?: number) {
  const due: Array<() => void> = [];
  const linger = new Linger(windowUs, { schedule: (task) => void due.push(task), cpus, ...(maxSkips === undefined ? {} : { maxSkips }) });
  return { linger, turn: () => due.splice(0).forEach((task) => task()), pending: () => due.length };
}

describe("Linger: a bounded watch after a hand-over", () => {
  test("one watch per turn, given the window, only when still wanted", () => {
    const { linger, turn, pending } = lingerOn(100);
    const windows: number[] = [];
    linger.soon((w) => (windows.push(w), true));
    linger.soon((w) => (windows.push(w), true));
    expect(pending()).toBe(1);
    turn();
    expect(windows).toEqual([100]);
    linger.soon(() => true, () => false);
    turn();
    expect(linger.stats()).toEqual({ watched: 1, came: 1, skipped: 0 });
  });

  /** Hand-overs until one schedules a watch (the ones before it are skipped), then its turn: how many were skipped. */
  function skipsBeforeWatch(l: ReturnType<typeof lingerOn>, came: boolean): number {
    let skipped = 0;
    while (l.pending() === 0) {
      l.linger.soon(() => came);
      if (l.pending() === 0) skipped++;
      if (skipped > 10_000) throw new Error("never watches again");
    }
    l.turn();
    return skipped;
  }

  test("misses in a row skip the next 1, 3, 7, ... hand-overs, up to LINGER_MAX_SKIPS; a watch that saw its message resets", () => {
    const l = lingerOn(100);
    expect(skipsBeforeWatch(l, false)).toBe(0);
    const runs: number[] = [];
    for (let i = 0; i < 8; i++) runs.push(skipsBeforeWatch(l, false));
    expect(runs).toEqual([1, 3, 7, 15, 31, 63, 127, 255].map((n) => Math.min(n, LINGER_MAX_SKIPS)));
    expect(runs.at(-1)).toBe(LINGER_MAX_SKIPS);
    // this watch (after the longest run of skips) sees its message: the next hand-over watches at once
    expect(skipsBeforeWatch(l, true)).toBe(LINGER_MAX_SKIPS);
    expect(skipsBeforeWatch(l, true)).toBe(0);
  });

  test("a skip limit of 2: two hand-overs skipped at most, the third watches", () => {
    const l = lingerOn(100, 2, 2);
    const runs = [0, 1, 2, 3].map(() => skipsBeforeWatch(l, false));
    expect(runs).toEqual([0, 1, 2, 2]);
  });

  test("never watches on one CPU, nor with a window of 0", () => {
    for (const [windowUs, cpus] of [
      [100, 1],
      [0, 2],
    ] as const) {
      const { linger, pending } = lingerOn(windowUs, cpus);
      linger.soon(() => true);
      expect(linger.enabled).toBe(false);
      expect(pending()).toBe(0);
    }
  });
});
