import { describe, expect, test } from "bun:test";
import {
  JIT_SETTLED_US_PER_TURN,
  jitCpuUs,
  warmUntilJitSettles,
  WARMUP_MAX_TURNS,
  WARMUP_MIN_TURNS,
} from "./jit-settle.ts";

const linux = process.platform === "linux";

describe("warm-up until the JIT settles (benchmark harness)", () => {
  test.if(linux)("reads the JIT threads' CPU time of a live process, null for a missing one", () => {
    expect(jitCpuUs(process.pid)).toBeGreaterThanOrEqual(0);
    expect(jitCpuUs(2 ** 22 + 1)).toBeNull(); // above Linux's pid_max limit: never a live process
  });

  test.if(linux)("stops after two quiet blocks once the minimum number of turns ran", async () => {
    let blocks = 0;
    // A block that runs no JavaScript worth compiling: the JIT threads stay (nearly) idle.
    const warm = await warmUntilJitSettles(process.pid, async () => {
      blocks++;
      await Bun.sleep(1);
      return WARMUP_MIN_TURNS / 2;
    });
    expect(warm.settled).toBe(true);
    expect(blocks).toBeGreaterThanOrEqual(2);
    expect(warm.turns).toBe(blocks * (WARMUP_MIN_TURNS / 2));
    expect(warm.jitUsPerTurn).not.toBeNull();
  });

  test("without readable JIT times it runs the minimum and says so", async () => {
    const warm = await warmUntilJitSettles(2 ** 22 + 1, async () => 400);
    expect(warm).toEqual({ turns: WARMUP_MIN_TURNS, jitUsPerTurn: null, settled: false });
  });

  test("a block that serves nothing is an error, not an endless warm-up", async () => {
    await expect(warmUntilJitSettles(1, async () => 0, () => 0)).rejects.toThrow(/served 0 turns/);
  });

  /** A JIT clock that advances `usPerTurn` for every turn a block serves. */
  function compiling(usPerTurn: number) {
    let clock = 0;
    let turns = 0;
    const block = async () => {
      turns += WARMUP_MIN_TURNS;
      clock += usPerTurn * WARMUP_MIN_TURNS;
      return WARMUP_MIN_TURNS;
    };
    return { block, read: () => clock, turns: () => turns };
  }

  test("settles at JIT_SETTLED_US_PER_TURN per turn, not one microsecond above it", async () => {
    const at = compiling(JIT_SETTLED_US_PER_TURN);
    const settled = await warmUntilJitSettles(1, at.block, at.read);
    expect(settled).toEqual({ turns: 2 * WARMUP_MIN_TURNS, jitUsPerTurn: JIT_SETTLED_US_PER_TURN, settled: true });
    const above = compiling(JIT_SETTLED_US_PER_TURN + 1);
    const busy = await warmUntilJitSettles(1, above.block, above.read);
    expect(busy.settled).toBe(false);
    expect(busy.turns).toBe(WARMUP_MAX_TURNS); // gave up at the cap
    expect(busy.jitUsPerTurn).toBe(JIT_SETTLED_US_PER_TURN + 1);
  });
});
