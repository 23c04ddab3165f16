import { expect, test } from "bun:test";
import {
  MCP_MAX_RESTARTS_PER_WINDOW,
  MCP_RESTART_BASE_DELAY_MS,
  MCP_RESTART_MAX_DELAY_MS,
  MCP_RESTART_WINDOW_MS,
} from "../../src/mcp/limits.ts";
import { CrashWindow, restartDelay } from "../../src/mcp/restart.ts";

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
  const window = new CrashWindow(() => now);
  for (let i = 0; i < MCP_MAX_RESTARTS_PER_WINDOW; i++) {
    expect(window.record()).toBe(true);
    now += 1000;
  }
  expect(window.record()).toBe(false);
  expect(window.count).toBe(MCP_MAX_RESTARTS_PER_WINDOW + 1);
});

test("crashes older than the window no longer count", () => {
  let now = 0;
  const window = new CrashWindow(() => now);
  for (let i = 0; i < MCP_MAX_RESTARTS_PER_WINDOW; i++) window.record();
  now += MCP_RESTART_WINDOW_MS;
  expect(window.record()).toBe(true);
  expect(window.count).toBe(1);
});
