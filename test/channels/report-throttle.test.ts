/**
 * A channel process's reports (liveness row, counters to the supervisor) follow its changes at most once per interval,
 * on an injected clock: the first change after a quiet interval is reported in the next turn of the event loop, the
 * changes within the interval together at its end, and the last report always comes after the last change.
 */
import { expect, test } from "bun:test";
import { CHANNEL_REPORT_INTERVAL_MS } from "../../src/channels/limits.ts";
import { throttled } from "../../src/channels/report-throttle.ts";
import { fakeTimers as sharedFakeTimers } from "../helpers/fake-timers.ts";

function fakeTimers() {
  const clock = sharedFakeTimers();
  /** Moves the clock to `to`, running what falls due on the way, in order (what `soon` queued is due at once). */
  const advance = (to: number) => clock.advance(to - clock.timers.now());
  return { timers: clock.timers, advance, pending: clock.pending };
}

test(`changes are reported at most once per CHANNEL_REPORT_INTERVAL_MS (${CHANNEL_REPORT_INTERVAL_MS} ms); the first at once, the rest at the interval's end`, () => {
  const { timers, advance, pending } = fakeTimers();
  const reports: number[] = [];
  let at = 0;
  const changed = throttled(() => reports.push(at), CHANNEL_REPORT_INTERVAL_MS, timers);
  changed();
  changed();
  advance((at = 0));
  expect(reports).toEqual([0]);
  // changes within the interval: one report at its end, none before
  for (const t of [10, 500, CHANNEL_REPORT_INTERVAL_MS - 1]) {
    advance((at = t));
    changed();
  }
  expect(reports).toEqual([0]);
  advance((at = CHANNEL_REPORT_INTERVAL_MS - 1));
  expect(reports).toEqual([0]);
  advance((at = CHANNEL_REPORT_INTERVAL_MS));
  expect(reports).toEqual([0, CHANNEL_REPORT_INTERVAL_MS]);
  expect(pending()).toBe(0);
  // a change one interval after the last report, or later, is reported at once again
  advance((at = 2 * CHANNEL_REPORT_INTERVAL_MS + 5));
  changed();
  advance(at);
  expect(reports).toEqual([0, CHANNEL_REPORT_INTERVAL_MS, 2 * CHANNEL_REPORT_INTERVAL_MS + 5]);
  // no change, no report
  advance(10 * CHANNEL_REPORT_INTERVAL_MS);
  expect(reports).toHaveLength(3);
});

test("an interval of 0 reports every change in the next turn of the event loop, several in one turn together", () => {
  const { timers, advance } = fakeTimers();
  let reports = 0;
  const changed = throttled(() => reports++, 0, timers);
  changed();
  changed();
  advance(0);
  expect(reports).toBe(1);
  changed();
  advance(0);
  expect(reports).toBe(2);
});
