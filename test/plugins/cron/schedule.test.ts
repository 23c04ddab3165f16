import { describe, expect, test } from "bun:test";
import { CRON_MAX_EXPRESSION_LENGTH, CRON_MAX_SLOTS, parseCron } from "../../../src/plugins/cron/index.ts";
import { isPrxError } from "../../../src/core/errors.ts";

const at = (iso: string) => new Date(iso).getTime();
const iso = (d: Date | null) => d?.toISOString() ?? null;

describe("cron schedule: next slot", () => {
  // 2026-01-31 is a Saturday.
  const from = "2026-01-31T23:59:30.000Z";
  const table: [expression: string, next: string | null, prev: string | null][] = [
    ["* * * * *", "2026-02-01T00:00:00.000Z", "2026-01-31T23:59:00.000Z"],
    ["*/15 * * * * *", "2026-01-31T23:59:45.000Z", "2026-01-31T23:59:30.000Z"],
    ["0 9 * * MON-FRI", "2026-02-02T09:00:00.000Z", "2026-01-30T09:00:00.000Z"],
    ["0 9 * * mon-fri", "2026-02-02T09:00:00.000Z", "2026-01-30T09:00:00.000Z"],
    ["0 0 29 2 *", "2028-02-29T00:00:00.000Z", "2024-02-29T00:00:00.000Z"],
    ["@hourly", "2026-02-01T00:00:00.000Z", "2026-01-31T23:00:00.000Z"],
    ["@daily", "2026-02-01T00:00:00.000Z", "2026-01-31T00:00:00.000Z"],
    ["@weekly", "2026-02-01T00:00:00.000Z", "2026-01-25T00:00:00.000Z"],
    ["@monthly", "2026-02-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z"],
    ["@yearly", "2027-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z"],
    ["30 2 1,15 * *", "2026-02-01T02:30:00.000Z", "2026-01-15T02:30:00.000Z"],
    // Both day fields restricted: either matches (vixie cron).
    ["0 0 13 * FRI", "2026-02-06T00:00:00.000Z", "2026-01-30T00:00:00.000Z"],
    ["5 4 * * sun", "2026-02-01T04:05:00.000Z", "2026-01-25T04:05:00.000Z"],
    ["5 4 * * 7", "2026-02-01T04:05:00.000Z", "2026-01-25T04:05:00.000Z"],
    ["0 0 * JAN,MAR *", "2026-03-01T00:00:00.000Z", "2026-01-31T00:00:00.000Z"],
    ["10-20/5 * * * * *", "2026-02-01T00:00:10.000Z", "2026-01-31T23:59:20.000Z"],
    ["45/5 * * * * *", "2026-01-31T23:59:45.000Z", "2026-01-31T23:58:55.000Z"],
    ["0 0 31 * *", "2026-03-31T00:00:00.000Z", "2026-01-31T00:00:00.000Z"],
    ["0 12 ? * *", "2026-02-01T12:00:00.000Z", "2026-01-31T12:00:00.000Z"],
  ];
  for (const [expression, next, prev] of table) {
    test(`${expression}`, () => {
      const schedule = parseCron(expression, { utc: true });
      expect(iso(schedule.nextAfter(at(from)))).toBe(next);
      expect(iso(schedule.prevAtOrBefore(at(from)))).toBe(prev);
    });
  }

  test("nextAfter is strictly after; prevAtOrBefore includes the instant", () => {
    const s = parseCron("0 * * * *", { utc: true });
    expect(iso(s.nextAfter(at("2026-01-01T10:00:00Z")))).toBe("2026-01-01T11:00:00.000Z");
    expect(iso(s.prevAtOrBefore(at("2026-01-01T10:00:00Z")))).toBe("2026-01-01T10:00:00.000Z");
    expect(iso(s.prevAtOrBefore(at("2026-01-01T09:59:59.999Z")))).toBe("2026-01-01T09:00:00.000Z");
    expect(s.matches(at("2026-01-01T10:00:00Z"))).toBe(true);
    expect(s.matches(at("2026-01-01T10:00:01Z"))).toBe(false);
  });

  test("slotsBetween returns a < s <= b, bounded by its limit", () => {
    const s = parseCron("*/10 * * * *", { utc: true });
    const slots = s.slotsBetween(at("2026-01-01T00:00:00Z"), at("2026-01-01T01:00:00Z")).map((d) => d.toISOString());
    expect(slots).toEqual([
      "2026-01-01T00:10:00.000Z",
      "2026-01-01T00:20:00.000Z",
      "2026-01-01T00:30:00.000Z",
      "2026-01-01T00:40:00.000Z",
      "2026-01-01T00:50:00.000Z",
      "2026-01-01T01:00:00.000Z",
    ]);
    expect(s.slotsBetween(at("2026-01-01T00:00:00Z"), at("2026-01-02T00:00:00Z"), 3)).toHaveLength(3);
  });

  test(`slotsBetween returns at most ${CRON_MAX_SLOTS} slots by default`, () => {
    const s = parseCron("* * * * * *", { utc: true });
    const from = at("2026-01-01T00:00:00Z");
    expect(s.slotsBetween(from, from + CRON_MAX_SLOTS * 1000)).toHaveLength(CRON_MAX_SLOTS);
    expect(s.slotsBetween(from, from + (CRON_MAX_SLOTS + 1) * 1000)).toHaveLength(CRON_MAX_SLOTS);
  });

  test("local time is the default", () => {
    const s = parseCron("0 9 * * *");
    const next = s.nextAfter(new Date(2026, 5, 10, 12, 0, 0))!;
    expect([next.getFullYear(), next.getMonth(), next.getDate(), next.getHours(), next.getMinutes()]).toEqual([
      2026, 5, 11, 9, 0,
    ]);
  });
});

describe("cron schedule: bad input names the field", () => {
  const bad: [expression: string, field: string | null, message: RegExp][] = [
    ["61 * * * *", "minute", /minute field value 61 is out of range 0-59/],
    ["* 24 * * *", "hour", /hour field value 24/],
    ["* * 0 * *", "day-of-month", /day-of-month field value 0/],
    ["* * 32 * *", "day-of-month", /out of range 1-31/],
    ["* * * 13 *", "month", /month field value 13/],
    ["* * * FOO *", "month", /"FOO" is not a number or a name \(JAN/],
    ["* * * * 8", "day-of-week", /day-of-week field value 8/],
    ["* * * * MON-", "day-of-week", /not a range/],
    ["60 * * * * *", "second", /second field value 60/],
    ["* * * * * * *", null, /has 7 fields; expected 5 or 6/],
    ["* * * *", null, /has 4 fields/],
    ["", null, /has 0 fields/],
    ["*/0 * * * *", "minute", /step "0"/],
    ["*/61 * * * *", "minute", /step "61"/],
    ["5-1 * * * *", "minute", /runs backwards/],
    ["1,,2 * * * *", "minute", /empty list item/],
    ["1/2/3 * * * *", "minute", /not a value, range or step/],
    ["? * * * *", "minute", /"\?" is not a number/],
    ["0 0 30 2 *", "day-of-month", /never occurs/],
    ["@reboot", null, /unknown macro @reboot/],
    ["L * * * *", "minute", /"L" is not a number/],
  ];
  for (const [expression, field, message] of bad) {
    test(JSON.stringify(expression), () => {
      try {
        parseCron(expression);
        throw new Error("accepted");
      } catch (error) {
        expect(isPrxError(error, "BAD_REQUEST")).toBe(true);
        expect((error as Error).message).toMatch(message);
        expect((error as { details?: { field: unknown } }).details?.field).toBe(field);
      }
    });
  }

  test(`expressions up to ${CRON_MAX_EXPRESSION_LENGTH} characters are accepted, longer ones refused`, () => {
    const padded = (n: number) => "*" + " ".repeat(n - 8) + "* * * *";
    expect(padded(CRON_MAX_EXPRESSION_LENGTH)).toHaveLength(CRON_MAX_EXPRESSION_LENGTH);
    expect(() => parseCron(padded(CRON_MAX_EXPRESSION_LENGTH))).not.toThrow();
    expect(() => parseCron(padded(CRON_MAX_EXPRESSION_LENGTH + 1))).toThrow(/longer than 256/);
  });
});
