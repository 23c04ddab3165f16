import { expect, test } from "bun:test";
import { timeText } from "../../src/core/time-text.ts";

test("every terminal view shows a time one way: to the second, in UTC; what is no time is shown as it is", () => {
  const at = Date.UTC(2026, 11, 5, 6, 32, 10, 456);
  expect(timeText(at)).toBe("2026-12-05 06:32:10 UTC");
  expect(timeText(new Date(at).toISOString())).toBe("2026-12-05 06:32:10 UTC");
  expect(timeText("2026-12-05T07:32:10+01:00")).toBe("2026-12-05 06:32:10 UTC");
  expect(timeText(new Date(at))).toBe("2026-12-05 06:32:10 UTC");
  expect(timeText("yesterday-ish")).toBe("yesterday-ish");
});
