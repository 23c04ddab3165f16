import { expect, test } from "bun:test";
import { dayIn, monthStart, nextDayStart, nextMonthStart } from "../../src/agent/calendar.ts";

test("days and months begin at the zone's midnight, across a change of offset too", () => {
  const at = Date.parse("2026-03-08T04:59:59.999Z"); // 23:59:59.999 on 7 March in New York (EST)
  expect(dayIn("America/New_York", at)).toBe("2026-03-07");
  expect(dayIn("America/New_York", at + 1)).toBe("2026-03-08");
  expect(dayIn("UTC", at)).toBe("2026-03-08");
  expect(new Date(nextDayStart("America/New_York", at)).toISOString()).toBe("2026-03-08T05:00:00.000Z");
  // 8 March has 23 hours there (clocks go forward at 02:00): the 9th begins at 04:00 UTC (EDT)
  expect(new Date(nextDayStart("America/New_York", at + 1)).toISOString()).toBe("2026-03-09T04:00:00.000Z");
  expect(new Date(nextMonthStart("America/New_York", at)).toISOString()).toBe("2026-04-01T04:00:00.000Z");
  expect(new Date(nextMonthStart("Asia/Tokyo", Date.parse("2026-12-31T15:00:00Z"))).toISOString()).toBe("2027-01-31T15:00:00.000Z");
  expect(new Date(nextMonthStart("UTC", Date.parse("2026-12-31T23:59:59Z"))).toISOString()).toBe("2027-01-01T00:00:00.000Z");
  expect(monthStart("2026-12-05")).toBe("2026-12-01");
});

test("UTC, read from Date, agrees with a zero-offset zone read through Intl", () => {
  const start = Date.parse("2024-02-28T23:59:00Z");
  for (let at = start; at < start + 400 * 86_400_000; at += 7_777_777) {
    expect([at, dayIn("UTC", at)]).toEqual([at, dayIn("Etc/Greenwich", at)]);
    expect([at, nextDayStart("UTC", at), nextMonthStart("UTC", at)]).toEqual([at, nextDayStart("Etc/Greenwich", at), nextMonthStart("Etc/Greenwich", at)]);
  }
});
