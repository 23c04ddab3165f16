/**
 * Days and months in a time zone, for budgets and daily usage totals. A day is "YYYY-MM-DD" of the zone's wall
 * clock; it and the month begin at the zone's local midnight.
 */
const formats = new Map<string, Intl.DateTimeFormat>();

function format(zone: string): Intl.DateTimeFormat {
  let found = formats.get(zone);
  if (!found) {
    found = new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" });
    formats.set(zone, found);
  }
  return found;
}

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** Zones whose wall clock is UTC's: read from Date without Intl (whose first time-zone format loads ICU data, ~18 ms). */
const UTC_ZONES: ReadonlySet<string> = new Set(["UTC", "Etc/UTC", "Etc/GMT", "GMT"]);

function wallClock(zone: string, at: number): WallClock {
  if (UTC_ZONES.has(zone)) {
    const d = new Date(at);
    return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: d.getUTCSeconds() };
  }
  const parts: Record<string, number> = {};
  for (const part of format(zone).formatToParts(at)) if (part.type !== "literal") parts[part.type] = Number(part.value);
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour!, minute: parts.minute!, second: parts.second! };
}

const pad = (n: number) => String(n).padStart(2, "0");

const MINUTE_MS = 60_000;
/** The last day answered per zone and the minute it was asked in: every zone's offset is whole minutes, so a day never changes within one. */
const lastDays = new Map<string, { minute: number; day: string }>();

/** The day of instant `at` (ms) in `zone`, as YYYY-MM-DD (asked every turn: the minute's answer is reused). */
export function dayIn(zone: string, at: number): string {
  const minute = Math.floor(at / MINUTE_MS);
  const last = lastDays.get(zone);
  if (last?.minute === minute) return last.day;
  const c = wallClock(zone, at);
  const day = `${c.year}-${pad(c.month)}-${pad(c.day)}`;
  lastDays.set(zone, { minute, day });
  return day;
}

/** The first day of the month of `day` (YYYY-MM-01). */
export function monthStart(day: string): string {
  return `${day.slice(0, 8)}01`;
}

/** The instant (ms) the zone's wall clock shows 00:00 of the given civil date (month may overflow: 13 is January). */
function localMidnight(zone: string, year: number, month: number, day: number): number {
  const wanted = Date.UTC(year, month - 1, day);
  // the zone's offset at the guess, applied twice: right across a change of offset (DST) too
  let guess = wanted;
  for (let i = 0; i < 2; i++) {
    const c = wallClock(zone, guess);
    const shown = Date.UTC(c.year, c.month - 1, c.day, c.hour, c.minute, c.second);
    guess += wanted - shown;
  }
  return guess;
}

/** When the day after instant `at` begins in `zone` (ms). */
export function nextDayStart(zone: string, at: number): number {
  const c = wallClock(zone, at);
  return localMidnight(zone, c.year, c.month, c.day + 1);
}

/** When the month after instant `at` begins in `zone` (ms). */
export function nextMonthStart(zone: string, at: number): number {
  const c = wallClock(zone, at);
  return localMidnight(zone, c.year, c.month + 1, 1);
}
