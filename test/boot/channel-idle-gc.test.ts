/**
 * A channel process's collection once it goes quiet, driven by injected timers: scheduled when the count of messages in
 * flight falls to 0, cancelled by the next message, made once per quiet period.
 */
import { expect, test } from "bun:test";
import { CHANNEL_IDLE_COLLECT_MS, idleCollector } from "../../src/boot/channel-idle-gc.ts";
import { fakeTimers as sharedFakeTimers } from "../helpers/fake-timers.ts";

function fakeTimers() {
  const clock = sharedFakeTimers();
  return { timers: clock.timers, advance: clock.advance, scheduled: clock.pending };
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
