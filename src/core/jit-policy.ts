/**
 * JavaScriptCore's tier-up during start-up. The binary starts with its JIT thresholds scaled by START_JIT_POLICY
 * (build.ts bakes it in): start-up code runs once, so compiling it is wasted time, and the JIT's own code and output
 * stay resident. A long-running mode calls `startupDone()` once it serves, so its hot paths compile as usual;
 * one-shot commands never need to.
 */
export const START_JIT_POLICY = 10;

/** Back to the normal JIT policy (idempotent; a no-op under `bun src/cli/main.ts`, which starts at 1 already). */
export function startupDone(): void {
  Bun.unsafe.setJITPolicy(1);
}
