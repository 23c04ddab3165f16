/**
 * Warming a server up until its JIT has settled, so latency is measured in the state a long-running gateway
 * spends its life in. JavaScriptCore compiles hot functions with its optimizing tiers (DFG, then FTL) on its own
 * JITWorker threads, FTL only after thousands of calls: a gateway's turns keep those threads busy for the first
 * ~15,000 turns (measured on the 2-core reference VM: 30-90 us of compile time per turn while it lasts, and the
 * main thread's own time per turn falls from ~210 to ~170 us once it stops). On a 2-core machine that compile
 * time competes with the turns themselves, so a short fixed warm-up measures the gateway's start-up, not its
 * steady state. Linux only (per-thread CPU from /proc); elsewhere the warm-up is the minimum number of turns.
 */
import { readdirSync, readFileSync } from "node:fs";

/** The JIT counts as settled when its threads used at most this much CPU per turn, in two blocks in a row. */
export const JIT_SETTLED_US_PER_TURN = 3;
/** Turns always run before measuring (caches, connections, the first tier-ups). */
export const WARMUP_MIN_TURNS = 1_600;
/** Stop warming after this many turns even if the JIT is still compiling (reported as not settled). */
export const WARMUP_MAX_TURNS = 48_000;

/** CPU time (us) the JIT compiler threads of `pid` have used so far; null where /proc is not available. */
export function jitCpuUs(pid: number): number | null {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return null;
  }
  let total = 0;
  for (const tid of tids) {
    try {
      if (!readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").startsWith("JIT")) continue;
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]) / 1000;
    } catch {
      // The thread exited between listing and reading: its time is gone with it, which only shortens a block.
    }
  }
  return total;
}

export interface Warmup {
  turns: number;
  /** JIT CPU per turn in the last block (us), null where it cannot be read. */
  jitUsPerTurn: number | null;
  settled: boolean;
}

/**
 * Run `block` (which serves some turns and returns how many) until the JIT threads of `pid` stay under
 * JIT_SETTLED_US_PER_TURN for two blocks in a row, or WARMUP_MAX_TURNS have run.
 */
export async function warmUntilJitSettles(
  pid: number,
  block: () => Promise<number>,
  readJitUs: (pid: number) => number | null = jitCpuUs,
): Promise<Warmup> {
  let turns = 0;
  let quiet = 0;
  let jitUsPerTurn: number | null = null;
  while (turns < WARMUP_MAX_TURNS) {
    const before = readJitUs(pid);
    const served = await block();
    if (!(served > 0))
      throw new Error(`a warm-up block served ${served} turns; the server under test is not answering`);
    turns += served;
    const after = readJitUs(pid);
    if (before === null || after === null) {
      if (turns >= WARMUP_MIN_TURNS) return { turns, jitUsPerTurn: null, settled: false };
      continue;
    }
    // A JIT thread that exits takes its counted time with it: a negative difference is a quiet block.
    jitUsPerTurn = Math.max(0, after - before) / Math.max(1, served);
    quiet = jitUsPerTurn <= JIT_SETTLED_US_PER_TURN ? quiet + 1 : 0;
    if (quiet >= 2 && turns >= WARMUP_MIN_TURNS) return { turns, jitUsPerTurn, settled: true };
  }
  return { turns, jitUsPerTurn, settled: false };
}

/** The warm-up of a run: until the JIT settles, or in the short pass (`bench --quick`) one block without waiting for it. */
export async function warmUp(pid: number, block: () => Promise<number>, quick: boolean): Promise<Warmup> {
  if (!quick) return warmUntilJitSettles(pid, block);
  return { turns: await block(), jitUsPerTurn: null, settled: false };
}

export function describeWarmup(w: Warmup): string {
  const jit = w.jitUsPerTurn === null ? "JIT time not readable" : `JIT ${w.jitUsPerTurn.toFixed(1)} us/turn at the end`;
  return `warm-up ${w.turns} turns (${w.settled ? "JIT settled" : "JIT not settled"}, ${jit})`;
}
