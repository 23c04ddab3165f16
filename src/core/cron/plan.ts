import { PrxError } from "../errors.ts";
import { CRON_MAX_SLOTS } from "./schedule.ts";

/**
 * When a job is due: the slots of a cron expression (CronSchedule), of a fixed interval or of one instant. `source`
 * names the plan; a scheduler restarts a job from "now" when its source changes.
 */
export interface SlotPlan {
  readonly source: string;
  /** The first slot strictly after `date`, or null when none comes. */
  nextAfter(date: Date | number): Date | null;
  /** The last slot at or before `date`, or null when none. */
  prevAtOrBefore(date: Date | number): Date | null;
  /** Slots s with a < s <= b, oldest first, at most `limit`. */
  slotsBetween(a: Date | number, b: Date | number, limit?: number): Date[];
}

const ms = (date: Date | number) => (typeof date === "number" ? date : date.getTime());

/** One instant: "at". */
export class AtPlan implements SlotPlan {
  readonly source: string;

  constructor(readonly at: number) {
    if (!Number.isFinite(at)) throw new PrxError("BAD_REQUEST", "an at schedule needs a valid instant (ISO-8601, e.g. 2026-12-05T09:00:00Z)");
    this.source = `at:${new Date(at).toISOString()}`;
  }

  nextAfter(date: Date | number): Date | null {
    return this.at > ms(date) ? new Date(this.at) : null;
  }

  prevAtOrBefore(date: Date | number): Date | null {
    return this.at <= ms(date) ? new Date(this.at) : null;
  }

  slotsBetween(a: Date | number, b: Date | number): Date[] {
    return this.at > ms(a) && this.at <= ms(b) ? [new Date(this.at)] : [];
  }
}

/** Every `everyMs` from `anchor`: "every". */
export class EveryPlan implements SlotPlan {
  readonly source: string;

  constructor(
    readonly everyMs: number,
    readonly anchor: number,
  ) {
    if (!Number.isSafeInteger(everyMs) || everyMs <= 0) throw new PrxError("BAD_REQUEST", "an every schedule needs every_ms > 0");
    this.source = `every:${everyMs}@${anchor}`;
  }

  nextAfter(date: Date | number): Date | null {
    const t = ms(date);
    if (t < this.anchor) return new Date(this.anchor);
    return new Date(this.anchor + (Math.floor((t - this.anchor) / this.everyMs) + 1) * this.everyMs);
  }

  prevAtOrBefore(date: Date | number): Date | null {
    const t = ms(date);
    if (t < this.anchor) return null;
    return new Date(this.anchor + Math.floor((t - this.anchor) / this.everyMs) * this.everyMs);
  }

  slotsBetween(a: Date | number, b: Date | number, limit = CRON_MAX_SLOTS): Date[] {
    const out: Date[] = [];
    for (let cursor = this.nextAfter(a); cursor && cursor.getTime() <= ms(b) && out.length < limit; cursor = this.nextAfter(cursor)) {
      out.push(cursor);
    }
    return out;
  }
}
