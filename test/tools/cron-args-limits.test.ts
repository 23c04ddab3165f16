import { describe, expect, test } from "bun:test";
import { CronScheduleArg } from "../../src/tools/builtins/cron-args.ts";
import { CRON_TOOL_MAX_TIME_CHARS } from "../../src/tools/builtins/cron-limits.ts";

const chars = (n: number) => "x".repeat(n);

describe("the cron tool's time arguments, at CRON_TOOL_MAX_TIME_CHARS", () => {
  test("an `at` instant of the limit's length is taken as text; one character more is refused", () => {
    expect(CronScheduleArg.safeParse({ kind: "at", at: chars(CRON_TOOL_MAX_TIME_CHARS) }).success).toBe(true);
    expect(CronScheduleArg.safeParse({ kind: "at", at: chars(CRON_TOOL_MAX_TIME_CHARS + 1) }).success).toBe(false);
  });

  test("a time zone name of the limit's length is taken; one character more is refused", () => {
    expect(CronScheduleArg.safeParse({ kind: "cron", expr: "0 9 * * *", tz: chars(CRON_TOOL_MAX_TIME_CHARS) }).success).toBe(true);
    expect(CronScheduleArg.safeParse({ kind: "cron", expr: "0 9 * * *", tz: chars(CRON_TOOL_MAX_TIME_CHARS + 1) }).success).toBe(false);
  });
});
