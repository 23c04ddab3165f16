/**
 * The gateway's optional parts wait for its first answer, driven by injected timers: they start on the turn after the
 * first request the access log is told of, or FIRST_ANSWER_WAIT_MS after listening when none comes.
 */
import { expect, test } from "bun:test";
import type { AccessEntry } from "../../src/gateway/access-log.ts";
import { FIRST_ANSWER_WAIT_MS, firstAnswer } from "../../src/boot/answer-first.ts";
import { fakeTimers as sharedFakeTimers } from "../helpers/fake-timers.ts";

function fakeTimers() {
  const clock = sharedFakeTimers();
  return { timers: clock.timers, advance: clock.advance, nextTurn: clock.flushSoon, scheduled: clock.pending };
}

const entry: AccessEntry = { method: "GET", path: "/health", status: 200, id: "r1", ms: 0.4, client: "127.0.0.1" };

/** Whether `promise` has settled once the microtasks queued so far have run. */
async function settled(promise: Promise<void>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  for (let i = 0; i < 10; i++) await Promise.resolve();
  return done;
}

test("the first answer lets the optional parts start on the next turn, and every request is still logged", async () => {
  const clock = fakeTimers();
  const logged: AccessEntry[] = [];
  const first = firstAnswer((e) => logged.push(e), clock.timers);
  const answered = first.answered();
  first.accessLog(entry);
  expect(await settled(answered)).toBe(false); // the response has not been written yet
  clock.nextTurn();
  expect(await settled(answered)).toBe(true);
  expect(clock.scheduled()).toBe(0); // the fallback timer is cleared
  first.accessLog({ ...entry, id: "r2" });
  expect(logged.map((e) => e.id)).toEqual(["r1", "r2"]);
});

test(`with no request they start ${FIRST_ANSWER_WAIT_MS} ms after listening; one ms short of it they wait`, async () => {
  const clock = fakeTimers();
  const first = firstAnswer(() => undefined, clock.timers);
  const answered = first.answered();
  clock.advance(FIRST_ANSWER_WAIT_MS - 1);
  expect(await settled(answered)).toBe(false);
  clock.advance(1);
  expect(await settled(answered)).toBe(true);
});

test("a request answered before listening was reported still counts: the wait ends at once on the next turn", async () => {
  const clock = fakeTimers();
  const first = firstAnswer(() => undefined, clock.timers);
  first.accessLog(entry);
  clock.nextTurn();
  expect(await settled(first.answered())).toBe(true);
});
