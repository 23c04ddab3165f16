import { describe, expect, test } from "bun:test";
import { sinceDay, USAGE_SINCE_MAX_DAYS } from "../../src/agent/usage-report.ts";

// a fixed "now" (2026-03-01 12:00 UTC): the days counted back are the test's, never the machine's clock
const NOW = Date.UTC(2026, 2, 1, 12);

describe("a usage report's `since` in days, at USAGE_SINCE_MAX_DAYS", () => {
  test("the limit is taken: the report starts that many days back, today included", () => {
    const first = sinceDay(`${USAGE_SINCE_MAX_DAYS}d`, "UTC", NOW);
    expect(Date.parse(`${first}T12:00:00Z`)).toBe(NOW - (USAGE_SINCE_MAX_DAYS - 1) * 86_400_000);
  });

  test("one day more is refused naming the range", () => {
    expect(() => sinceDay(`${USAGE_SINCE_MAX_DAYS + 1}d`, "UTC", NOW)).toThrow(`between 1d and ${USAGE_SINCE_MAX_DAYS}d`);
  });
});
