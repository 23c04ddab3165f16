import { describe, expect, test } from "bun:test";
import { scheduleInWords } from "../../src/console/app/schedule-words.ts";

describe("a scheduled job's schedule in words (console)", () => {
  test("an instant, to the second in UTC", () => {
    expect(scheduleInWords({ kind: "at", at: "2026-12-05T09:00:00.000Z" })).toBe("once, at 2026-12-05 09:00:00 UTC");
  });

  test("an interval in its largest whole unit", () => {
    expect(scheduleInWords({ kind: "every", every_ms: 30_000 })).toBe("every 30 seconds");
    expect(scheduleInWords({ kind: "every", every_ms: 60_000 })).toBe("every minute");
    expect(scheduleInWords({ kind: "every", every_ms: 5_400_000 })).toBe("every 90 minutes");
    expect(scheduleInWords({ kind: "every", every_ms: 7_200_000 })).toBe("every 2 hours");
    expect(scheduleInWords({ kind: "every", every_ms: 86_400_000 })).toBe("every day");
    expect(scheduleInWords({ kind: "every", every_ms: 1500 })).toBe("every 1500 ms");
  });

  test("plain cron expressions read as days and times, with their time zone", () => {
    expect(scheduleInWords({ kind: "cron", expr: "0 9 * * 1-5", tz: "UTC" })).toBe("Monday to Friday at 09:00 (UTC)");
    expect(scheduleInWords({ kind: "cron", expr: "30 7 * * *", tz: "Europe/Berlin" })).toBe("every day at 07:30 (Europe/Berlin)");
    expect(scheduleInWords({ kind: "cron", expr: "0 9,17 * * 6,0", tz: "UTC" })).toBe("Saturday and Sunday at 09:00 and 17:00 (UTC)");
    expect(scheduleInWords({ kind: "cron", expr: "*/15 * * * *", tz: "UTC" })).toBe("every 15 minutes (UTC)");
    expect(scheduleInWords({ kind: "cron", expr: "5 * * * *", tz: "UTC" })).toBe("every hour at :05 (UTC)");
    expect(scheduleInWords({ kind: "cron", expr: "0 */6 * * *", tz: "UTC" })).toBe("every 6 hours at :00 (UTC)");
    expect(scheduleInWords({ kind: "cron", expr: "0 0 1 * *", tz: "UTC" })).toBe("on day 1 of each month at 00:00 (UTC)");
    expect(scheduleInWords({ kind: "cron", expr: "0 12 24 12 *", tz: "UTC" })).toBe("on 24 December at 12:00 (UTC)");
    expect(scheduleInWords({ kind: "cron", expr: "@weekly", tz: "UTC" })).toBe("Sunday at 00:00 (UTC)");
    expect(scheduleInWords({ kind: "cron", expr: "0 30 8 * * *" })).toBe("every day at 08:30 (the gateway's local time)");
  });

  test("an expression with no plain reading is shown as written", () => {
    expect(scheduleInWords({ kind: "cron", expr: "5 9-17 * * *", tz: "UTC" })).toBe("cron 5 9-17 * * * (UTC)");
    expect(scheduleInWords({ kind: "cron", expr: "15 0 30 8 * *", tz: "UTC" })).toBe("cron 15 0 30 8 * * (UTC)");
    expect(scheduleInWords({ kind: "cron", expr: "0 9 1 * 1", tz: "UTC" })).toBe("cron 0 9 1 * 1 (UTC)");
  });
});
