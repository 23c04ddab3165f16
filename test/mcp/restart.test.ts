import { expect, test } from "bun:test";
import { exponentialDelay, RestartPolicy } from "../../src/core/supervise/index.ts";
import {
  MCP_MAX_RESTARTS_PER_WINDOW,
  MCP_RESTART_BASE_DELAY_MS,
  MCP_RESTART_LIMITS,
  MCP_RESTART_MAX_DELAY_MS,
  MCP_RESTART_WINDOW_MS,
  MCP_START_BACKOFF,
} from "../../src/mcp/limits.ts";

/** The wait before attempt `n` (1-based) after a failed start. */
const restartDelay = (attempt: number) => exponentialDelay(attempt - 1, MCP_START_BACKOFF);

test("the restart delay doubles from the base and stops at the cap", () => {
  expect(restartDelay(1)).toBe(MCP_RESTART_BASE_DELAY_MS);
  expect(restartDelay(2)).toBe(MCP_RESTART_BASE_DELAY_MS * 2);
  expect(restartDelay(3)).toBe(MCP_RESTART_BASE_DELAY_MS * 4);
  // the attempt whose doubling first reaches the cap, and every later one
  const capped = Math.ceil(Math.log2(MCP_RESTART_MAX_DELAY_MS / MCP_RESTART_BASE_DELAY_MS)) + 1;
  expect(restartDelay(capped - 1)).toBeLessThan(MCP_RESTART_MAX_DELAY_MS);
  expect(restartDelay(capped)).toBe(MCP_RESTART_MAX_DELAY_MS);
  expect(restartDelay(1000)).toBe(MCP_RESTART_MAX_DELAY_MS);
});

test(`${MCP_MAX_RESTARTS_PER_WINDOW} crashes within the window are restarted; one more is not`, () => {
  let now = 1_000_000;
  const window = new RestartPolicy(MCP_RESTART_LIMITS, () => now);
  for (let i = 0; i < MCP_MAX_RESTARTS_PER_WINDOW; i++) {
    expect(window.exited().restart).toBe(true);
    now += 1000;
  }
  const last = window.exited();
  expect(last.restart).toBe(false);
  expect(last.exitsInWindow).toBe(MCP_MAX_RESTARTS_PER_WINDOW + 1);
});

test("crashes older than the window no longer count", () => {
  let now = 0;
  const window = new RestartPolicy(MCP_RESTART_LIMITS, () => now);
  for (let i = 0; i < MCP_MAX_RESTARTS_PER_WINDOW; i++) window.exited();
  now += MCP_RESTART_WINDOW_MS;
  const crash = window.exited();
  expect(crash.restart).toBe(true);
  expect(crash.exitsInWindow).toBe(1);
});
