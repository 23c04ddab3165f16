import { afterAll, beforeAll } from "bun:test";
import { getLogLevel, setLogLevel } from "../../../src/core/logger.ts";

/**
 * Logs off for the calling test file, and back to their level after it: expected failures are asserted through
 * statuses and errors, and the output stays readable (PRX_TEST_LOGS keeps them on).
 */
export function quietLogs(): void {
  let level: ReturnType<typeof getLogLevel>;
  beforeAll(() => {
    level = getLogLevel();
    if (!process.env.PRX_TEST_LOGS) setLogLevel("silent");
  });
  afterAll(() => setLogLevel(level));
}

export * from "./workspace.ts";
