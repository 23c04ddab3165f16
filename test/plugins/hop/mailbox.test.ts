import { expect, test } from "bun:test";
import { SANDBOX_LINGER_US } from "../../../src/plugins/wasm/limits.ts";
import { lingerWindowUs, Mailbox } from "../../../src/plugins/hop/index.ts";

/** A clock (ms) that moves 1 us per reading and runs `at[k]` on its k-th reading (0 is the first). */
function steppingClock(at: Record<number, () => void> = {}) {
  let reads = 0;
  return {
    now: () => {
      const k = reads++;
      at[k]?.();
      return k / 1000;
    },
    reads: () => reads,
  };
}

test("linger watches until the window has passed, its last look at the window's end", () => {
  const box = new Mailbox();
  const clock = steppingClock();
  expect(box.linger(box.seen(), SANDBOX_LINGER_US, clock.now)).toBe(false);
  // the start, then one reading per look until the reading that equals the end
  expect(clock.reads()).toBe(SANDBOX_LINGER_US + 1);
});

test("a window of 0 looks once", () => {
  const box = new Mailbox();
  const clock = steppingClock();
  expect(box.linger(box.seen(), 0, clock.now)).toBe(false);
  expect(clock.reads()).toBe(2);
});

test("a message posted before linger starts ends it at once", () => {
  const box = new Mailbox();
  const seen = box.seen();
  box.posted();
  const clock = steppingClock();
  expect(box.linger(seen, SANDBOX_LINGER_US, clock.now)).toBe(true);
  expect(clock.reads()).toBe(1);
});

test("a message the other side posts during the window ends it at the next look", () => {
  const worker = new Mailbox();
  const main = new Mailbox(worker.buffer); // the main thread's view of the same shared counter
  const clock = steppingClock({ 5: () => main.posted() });
  expect(worker.linger(worker.seen(), SANDBOX_LINGER_US, clock.now)).toBe(true);
  expect(clock.reads()).toBe(6);
});

test("a message posted just at the window's end is not waited for", () => {
  const worker = new Mailbox();
  const main = new Mailbox(worker.buffer);
  const clock = steppingClock({ [SANDBOX_LINGER_US + 1]: () => main.posted() });
  expect(worker.linger(worker.seen(), SANDBOX_LINGER_US, clock.now)).toBe(false);
  expect(clock.reads()).toBe(SANDBOX_LINGER_US + 1);
});

test("a side of a process that may run on one CPU does not watch; with two or more it watches the whole window", () => {
  expect(lingerWindowUs(1, SANDBOX_LINGER_US)).toBe(0);
  expect(lingerWindowUs(2, SANDBOX_LINGER_US)).toBe(SANDBOX_LINGER_US);
  expect(lingerWindowUs(64, SANDBOX_LINGER_US)).toBe(SANDBOX_LINGER_US);
});

test("a mailbox over a view of memory another process maps counts in that element; it has no SharedArrayBuffer to post", () => {
  const memory = new Int32Array(new ArrayBuffer(8));
  const box = new Mailbox(memory.subarray(1, 2));
  box.posted();
  box.posted();
  expect(Array.from(memory)).toEqual([0, 2]);
  expect(box.seen()).toBe(2);
  expect(() => box.buffer).toThrow(/mapped from a file/);
  expect(new Mailbox().buffer).toBeInstanceOf(SharedArrayBuffer);
});
