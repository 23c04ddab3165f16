import { cronError, nextAllowed, parseField, prevAllowed } from "./fields.ts";
import type { CronField, FieldName } from "./fields.ts";

/** Longest cron expression accepted. */
export const CRON_MAX_EXPRESSION_LENGTH = 256;
/** How far nextAfter/prevAtOrBefore search; covers Feb 29 across a skipped leap year (2100). */
export const CRON_SEARCH_YEARS = 9;
/** Most slots slotsBetween returns. */
export const CRON_MAX_SLOTS = 10_000;

const MACROS: Record<string, string> = {
  "@yearly": "0 0 0 1 1 *",
  "@annually": "0 0 0 1 1 *",
  "@monthly": "0 0 0 1 * *",
  "@weekly": "0 0 0 * * 0",
  "@daily": "0 0 0 * * *",
  "@midnight": "0 0 0 * * *",
  "@hourly": "0 0 * * * *",
};

const SIX: FieldName[] = ["second", "minute", "hour", "day-of-month", "month", "day-of-week"];
const MONTH_MAX_DAYS = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const DST_RETRIES = 10_000;

interface Parts {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: number;
}

export interface CronScheduleOptions {
  /** Evaluate in UTC instead of the process's local time zone (default: local, like cron). */
  utc?: boolean;
  /** Evaluate in this IANA time zone ("Europe/Berlin"); wins over `utc`. */
  tz?: string;
}

/**
 * A parsed cron schedule. 5 fields are `min hour dom mon dow` (second 0); 6 fields put seconds first. Day of month
 * and day of week combine like vixie cron: when both are restricted a day matching either fires. In local time, a
 * slot inside a DST gap fires at the shifted time and a repeated hour fires once.
 */
export class CronSchedule {
  readonly source: string;
  readonly utc: boolean;
  private readonly fields: Record<FieldName, CronField>;
  private readonly zone: ZoneClock | null;

  constructor(expression: string, options: CronScheduleOptions = {}) {
    this.source = expression;
    this.utc = options.utc ?? false;
    this.zone = options.tz === undefined ? null : new ZoneClock(options.tz);
    this.fields = parseExpression(expression);
  }

  /** The first slot strictly after `date`, or null when none comes within CRON_SEARCH_YEARS. */
  nextAfter(date: Date | number): Date | null {
    let ms = Math.floor(toMs(date) / 1000) * 1000 + 1000;
    const horizon = this.partsOf(ms).y + CRON_SEARCH_YEARS;
    for (let i = 0; i < DST_RETRIES; i++) {
      const found = this.searchForward(this.partsOf(ms), horizon);
      if (!found) return null;
      const at = this.msOf(found);
      if (at >= ms) return new Date(at);
      ms += 1000;
    }
    return null;
  }

  /** The last slot at or before `date`, or null when none lies within CRON_SEARCH_YEARS. */
  prevAtOrBefore(date: Date | number): Date | null {
    let ms = Math.floor(toMs(date) / 1000) * 1000;
    const horizon = this.partsOf(ms).y - CRON_SEARCH_YEARS;
    for (let i = 0; i < DST_RETRIES; i++) {
      const found = this.searchBackward(this.partsOf(ms), horizon);
      if (!found) return null;
      const at = this.msOf(found);
      if (at <= ms) return new Date(at);
      ms -= 1000;
    }
    return null;
  }

  /** Slots s with a < s <= b, oldest first, at most `limit`. */
  slotsBetween(a: Date | number, b: Date | number, limit = CRON_MAX_SLOTS): Date[] {
    const end = toMs(b);
    const out: Date[] = [];
    let cursor = this.nextAfter(a);
    while (cursor && cursor.getTime() <= end && out.length < limit) {
      out.push(cursor);
      cursor = this.nextAfter(cursor);
    }
    return out;
  }

  matches(date: Date | number): boolean {
    const ms = toMs(date);
    return ms % 1000 === 0 && this.prevAtOrBefore(ms)?.getTime() === ms;
  }

  private dayMatches(y: number, mo: number, d: number): boolean {
    const dom = this.fields["day-of-month"];
    const dow = this.fields["day-of-week"];
    const domOk = dom.allowed[d] === true;
    if (dom.star && dow.star) return true;
    const dowOk = dow.allowed[new Date(Date.UTC(y, mo - 1, d)).getUTCDay()] === true;
    if (!dom.star && !dow.star) return domOk || dowOk;
    return dom.star ? dowOk : domOk;
  }

  private searchForward(p: Parts, horizon: number): Parts | null {
    const f = this.fields;
    for (;;) {
      if (p.y > horizon) return null;
      const mo = nextAllowed(f.month, p.mo);
      if (mo === -1) {
        Object.assign(p, { y: p.y + 1, mo: 1, d: 1, h: 0, mi: 0, s: 0 });
        continue;
      }
      if (mo !== p.mo) Object.assign(p, { mo, d: 1, h: 0, mi: 0, s: 0 });
      const dim = daysInMonth(p.y, p.mo);
      let d = p.d;
      while (d <= dim && !this.dayMatches(p.y, p.mo, d)) d++;
      if (d > dim) {
        Object.assign(p, { mo: p.mo + 1, d: 1, h: 0, mi: 0, s: 0 });
        continue;
      }
      if (d !== p.d) Object.assign(p, { d, h: 0, mi: 0, s: 0 });
      const h = nextAllowed(f.hour, p.h);
      if (h === -1) {
        Object.assign(p, { d: p.d + 1, h: 0, mi: 0, s: 0 });
        continue;
      }
      if (h !== p.h) Object.assign(p, { h, mi: 0, s: 0 });
      const mi = nextAllowed(f.minute, p.mi);
      if (mi === -1) {
        Object.assign(p, { h: p.h + 1, mi: 0, s: 0 });
        continue;
      }
      if (mi !== p.mi) Object.assign(p, { mi, s: 0 });
      const s = nextAllowed(f.second, p.s);
      if (s === -1) {
        Object.assign(p, { mi: p.mi + 1, s: 0 });
        continue;
      }
      p.s = s;
      return p;
    }
  }

  private searchBackward(p: Parts, horizon: number): Parts | null {
    const f = this.fields;
    for (;;) {
      if (p.y < horizon) return null;
      const mo = prevAllowed(f.month, p.mo);
      if (mo === -1) {
        Object.assign(p, { y: p.y - 1, mo: 12, d: 31, h: 23, mi: 59, s: 59 });
        continue;
      }
      if (mo !== p.mo) Object.assign(p, { mo, d: daysInMonth(p.y, mo), h: 23, mi: 59, s: 59 });
      const dim = daysInMonth(p.y, p.mo);
      if (p.d > dim) Object.assign(p, { d: dim, h: 23, mi: 59, s: 59 });
      let d = p.d;
      while (d >= 1 && !this.dayMatches(p.y, p.mo, d)) d--;
      if (d < 1) {
        if (p.mo === 1) Object.assign(p, { y: p.y - 1, mo: 12, d: 31, h: 23, mi: 59, s: 59 });
        else Object.assign(p, { mo: p.mo - 1, d: 31, h: 23, mi: 59, s: 59 });
        continue;
      }
      if (d !== p.d) Object.assign(p, { d, h: 23, mi: 59, s: 59 });
      const h = prevAllowed(f.hour, p.h);
      if (h === -1) {
        Object.assign(p, { d: p.d - 1, h: 23, mi: 59, s: 59 });
        continue;
      }
      if (h !== p.h) Object.assign(p, { h, mi: 59, s: 59 });
      const mi = prevAllowed(f.minute, p.mi);
      if (mi === -1) {
        Object.assign(p, { h: p.h - 1, mi: 59, s: 59 });
        continue;
      }
      if (mi !== p.mi) Object.assign(p, { mi, s: 59 });
      const s = prevAllowed(f.second, p.s);
      if (s === -1) {
        Object.assign(p, { mi: p.mi - 1, s: 59 });
        continue;
      }
      p.s = s;
      return p;
    }
  }

  private partsOf(ms: number): Parts {
    if (this.zone) return this.zone.partsOf(ms);
    const t = new Date(ms);
    return this.utc
      ? {
          y: t.getUTCFullYear(),
          mo: t.getUTCMonth() + 1,
          d: t.getUTCDate(),
          h: t.getUTCHours(),
          mi: t.getUTCMinutes(),
          s: t.getUTCSeconds(),
        }
      : {
          y: t.getFullYear(),
          mo: t.getMonth() + 1,
          d: t.getDate(),
          h: t.getHours(),
          mi: t.getMinutes(),
          s: t.getSeconds(),
        };
  }

  private msOf(p: Parts): number {
    if (this.zone) return this.zone.msOf(p);
    return this.utc
      ? Date.UTC(p.y, p.mo - 1, p.d, p.h, p.mi, p.s)
      : new Date(p.y, p.mo - 1, p.d, p.h, p.mi, p.s).getTime();
  }
}

/** Wall-clock fields in one IANA time zone, through Intl: a slot in a DST gap fires at the shifted time, a repeated hour once. */
class ZoneClock {
  private readonly format: Intl.DateTimeFormat;

  constructor(readonly tz: string) {
    try {
      this.format = new Intl.DateTimeFormat("en-US", {
        timeZone: tz,
        hourCycle: "h23",
        year: "numeric",
        month: "numeric",
        day: "numeric",
        hour: "numeric",
        minute: "numeric",
        second: "numeric",
      });
    } catch {
      throw cronError(tz, null, `names no time zone known here (use an IANA name such as "Europe/Berlin" or "UTC")`);
    }
  }

  partsOf(ms: number): Parts {
    const out: Record<string, number> = {};
    for (const part of this.format.formatToParts(ms)) if (part.type !== "literal") out[part.type] = Number(part.value);
    return { y: out.year!, mo: out.month!, d: out.day!, h: out.hour! % 24, mi: out.minute!, s: out.second! };
  }

  private offset(ms: number): number {
    const p = this.partsOf(ms);
    return Date.UTC(p.y, p.mo - 1, p.d, p.h, p.mi, p.s) - Math.floor(ms / 1000) * 1000;
  }

  msOf(p: Parts): number {
    const wall = Date.UTC(p.y, p.mo - 1, p.d, p.h, p.mi, p.s);
    const first = wall - this.offset(wall);
    const second = wall - this.offset(first);
    if (first === second) return first;
    // a repeated hour: the earlier instant; a gap: the later offset, which lands after the gap
    return this.partsOf(first).h === p.h && this.partsOf(second).h === p.h ? Math.min(first, second) : Math.max(first, second);
  }
}

/** Parse a cron expression; throws PrxError (BAD_REQUEST) naming the bad field. */
export function parseCron(expression: string, options: CronScheduleOptions = {}): CronSchedule {
  return new CronSchedule(expression, options);
}

function parseExpression(expression: string): Record<FieldName, CronField> {
  if (typeof expression !== "string") throw cronError(String(expression), null, "is not a string");
  if (expression.length > CRON_MAX_EXPRESSION_LENGTH) {
    throw cronError(expression.slice(0, 32) + "...", null, `is longer than ${CRON_MAX_EXPRESSION_LENGTH} characters`);
  }
  let text = expression.trim();
  if (text.startsWith("@")) {
    const macro = MACROS[text.toLowerCase()];
    if (!macro) throw cronError(expression, null, `unknown macro ${text} (known: ${Object.keys(MACROS).join(", ")})`);
    text = macro;
  }
  const parts = text === "" ? [] : text.split(/\s+/);
  if (parts.length !== 5 && parts.length !== 6) {
    throw cronError(expression, null, `has ${parts.length} fields; expected 5 or 6`);
  }
  if (parts.length === 5) parts.unshift("0");
  const fields = {} as Record<FieldName, CronField>;
  SIX.forEach((name, i) => (fields[name] = parseField(expression, name, parts[i]!)));
  checkReachable(expression, fields);
  return fields;
}

/** Reject day-of-month/month combinations that never occur (e.g. "0 0 30 2 *"). */
function checkReachable(expression: string, f: Record<FieldName, CronField>): void {
  const dom = f["day-of-month"];
  if (dom.star || !f["day-of-week"].star) return;
  const longest = Math.max(...f.month.values.map((m) => MONTH_MAX_DAYS[m]!));
  if (dom.values[0]! > longest) {
    throw cronError(expression, "day-of-month", `day ${dom.values[0]} never occurs in the selected months`);
  }
}

function daysInMonth(y: number, mo: number): number {
  return new Date(Date.UTC(y, mo, 0)).getUTCDate();
}

function toMs(date: Date | number): number {
  return typeof date === "number" ? date : date.getTime();
}
