/**
 * A channel process's collection once it goes quiet, driven by injected timers: scheduled when the count of messages in
 * flight falls to 0, cancelled by the next message, made once per quiet period.
 */
import { expect, test } from "bun:test";
import { CHANNEL_IDLE_COLLECT_MS, idleCollector, type IdleTimers } from "../../src/boot/channel-idle-gc.ts";

function fakeTimers() {
  let now = 0;
  let next = 0;
  const due = new Map<number, { at: number; run: () => void }>();
  const timers: IdleTimers = {
    set: (run, ms) => (due.set(++next, { at: now + ms, run }), next),
    clear: (handle) => void due.delete(handle as number),
  };
  const advance = (ms: number) => {
    now += ms;
    for (const [id, timer] of [...due]) if (timer.at <= now) (due.delete(id), timer.run());
  };
  return { timers, advance, scheduled: () => due.size };
}

test(`a quiet period of ${CHANNEL_IDLE_COLLECT_MS} ms collects once; one ms short of it does not`, () => {
  const clock = fakeTimers();
  let collections = 0;
  const idle = idleCollector(() => collections++, clock.timers);
  idle.inFlight(1);
  expect(clock.scheduled()).toBe(0);
  idle.inFlight(0);
  clock.advance(CHANNEL_IDLE_COLLECT_MS - 1);
  expect(collections).toBe(0);
  clock.advance(1);
  expect(collections).toBe(1);
  // still quiet: nothing more until the next message has come and gone
  clock.advance(CHANNEL_IDLE_COLLECT_MS * 10);
  expect(collections).toBe(1);
  idle.inFlight(1);
  idle.inFlight(0);
  clock.advance(CHANNEL_IDLE_COLLECT_MS);
  expect(collections).toBe(2);
});

test("messages that keep coming within the interval never collect: not once per message", () => {
  const clock = fakeTimers();
  let collections = 0;
  const idle = idleCollector(() => collections++, clock.timers);
  for (let i = 0; i < 100; i++) {
    idle.inFlight(1);
    idle.inFlight(0);
    clock.advance(CHANNEL_IDLE_COLLECT_MS - 1);
  }
  expect(collections).toBe(0);
  expect(clock.scheduled()).toBe(1);
  clock.advance(1);
  expect(collections).toBe(1);
});

test("a message in flight when the interval ends cancels the collection", () => {
  const clock = fakeTimers();
  let collections = 0;
  const idle = idleCollector(() => collections++, clock.timers);
  idle.inFlight(0);
  idle.inFlight(2);
  clock.advance(CHANNEL_IDLE_COLLECT_MS * 2);
  expect(collections).toBe(0);
  expect(clock.scheduled()).toBe(0);
});
