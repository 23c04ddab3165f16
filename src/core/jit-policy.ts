/**
 * JavaScriptCore's tier-up during start-up (a kept start-up trick: src/boot/tricks.ts; in core because plugin Workers
 * use it too). The binary starts with its JIT thresholds scaled by START_JIT_POLICY (build.ts bakes it in): start-up
 * code runs once, so compiling it is wasted time, and the JIT's own code and output stay resident. A process still running STARTUP_WINDOW_MS after launch goes
 * back to the normal policy (cli/main.ts), plugin Workers at once, so the hot paths of a long-running mode compile as
 * usual; one-shot commands end first and never need to.
 */
// 1000: a start-up runs in the interpreter; 10 still compiled enough to keep ~3.5 MB more resident in an idle gateway
export const START_JIT_POLICY = 1000;

/**
 * A process still running this long after launch is a long-running one (gateway, chat, channel, MCP server, plugin
 * child): its hot paths get the normal JIT from then on.
 */
export const STARTUP_WINDOW_MS = 1000;

/** Back to the normal JIT policy (idempotent; a no-op under `bun src/cli/main.ts`, which starts at 1 already). */
export function startupDone(): void {
  Bun.unsafe.setJITPolicy(1);
}

/** The normal JIT policy once the process has run STARTUP_WINDOW_MS (the timer does not keep it alive). */
export function startupDoneAfterWindow(): void {
  setTimeout(startupDone, STARTUP_WINDOW_MS).unref();
}
