/** Slot plans: a cron expression in a named time zone (across both DST changes), one instant, a fixed interval. */
import { describe, expect, test } from "bun:test";
import { AtPlan, CronSchedule, EveryPlan } from "../../src/core/cron/index.ts";
import { isPrxError } from "../../src/core/errors.ts";

const iso = (d: Date | null) => d?.toISOString() ?? null;

describe("cron in a time zone", () => {
  test("09:00 in Berlin is 08:00Z in winter and 07:00Z in summer; in New York 14:00Z / 13:00Z", () => {
    const berlin = new CronSchedule("0 9 * * *", { tz: "Europe/Berlin" });
    expect(iso(berlin.nextAfter(Date.parse("2026-12-05T10:00:00Z")))).toBe("2026-12-06T08:00:00.000Z");
    expect(iso(berlin.nextAfter(Date.parse("2026-07-01T10:00:00Z")))).toBe("2026-07-02T07:00:00.000Z");
    expect(iso(berlin.prevAtOrBefore(Date.parse("2026-07-02T07:00:00Z")))).toBe("2026-07-02T07:00:00.000Z");
    const ny = new CronSchedule("0 9 * * *", { tz: "America/New_York" });
    expect(iso(ny.nextAfter(Date.parse("2026-12-05T10:00:00Z")))).toBe("2026-12-05T14:00:00.000Z");
    expect(iso(ny.nextAfter(Date.parse("2026-07-01T14:00:00Z")))).toBe("2026-07-02T13:00:00.000Z");
  });

  test("a slot in the spring-forward gap fires at the shifted time; one in the repeated autumn hour fires once", () => {
    const s = new CronSchedule("30 2 * * *", { tz: "Europe/Berlin" });
    // 2026-03-29: 02:00 CET becomes 03:00 CEST; 02:30 does not exist
    expect(iso(s.nextAfter(Date.parse("2026-03-28T12:00:00Z")))).toBe("2026-03-29T01:30:00.000Z");
    // 2026-10-25: 03:00 CEST becomes 02:00 CET; 02:30 happens twice, the slot fires once that day
    const slots = s.slotsBetween(Date.parse("2026-10-24T12:00:00Z"), Date.parse("2026-10-25T12:00:00Z")).map(iso);
    expect(slots).toHaveLength(1);
  });

  test("an unknown zone is refused naming it", () => {
    let caught: unknown = null;
    try {
      new CronSchedule("0 9 * * *", { tz: "Mars/Olympus" });
    } catch (error) {
      caught = error;
    }
    expect(isPrxError(caught, "BAD_REQUEST")).toBe(true);
    expect(String((caught as Error).message)).toContain("Mars/Olympus");
  });
});

describe("at and every", () => {
  test("an instant is its only slot", () => {
    const at = new AtPlan(Date.parse("2026-12-05T10:00:02Z"));
    expect(at.source).toBe("at:2026-12-05T10:00:02.000Z");
    expect(iso(at.nextAfter(Date.parse("2026-12-05T10:00:01.999Z")))).toBe("2026-12-05T10:00:02.000Z");
    expect(at.nextAfter(Date.parse("2026-12-05T10:00:02Z"))).toBeNull();
    expect(at.prevAtOrBefore(Date.parse("2026-12-05T10:00:01.999Z"))).toBeNull();
    expect(at.slotsBetween(0, Date.parse("2026-12-06T00:00:00Z"))).toHaveLength(1);
  });

  test("an interval counts from its anchor", () => {
    const every = new EveryPlan(60_000, 1_000);
    expect(every.nextAfter(0)!.getTime()).toBe(1_000);
    expect(every.nextAfter(1_000)!.getTime()).toBe(61_000);
    expect(every.prevAtOrBefore(60_999)!.getTime()).toBe(1_000);
    expect(every.prevAtOrBefore(999)).toBeNull();
    expect(every.slotsBetween(1_000, 181_000).map((d) => d.getTime())).toEqual([61_000, 121_000, 181_000]);
    expect(every.slotsBetween(0, 10_000_000, 2)).toHaveLength(2);
  });
});
