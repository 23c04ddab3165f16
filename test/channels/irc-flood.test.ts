/** IRC flood control: the send bucket on a hand-driven clock, at its burst and one past it. */
import { expect, test } from "bun:test";
import { SendBucket } from "../../src/channels/irc/flood.ts";
import { IRC_SEND_BURST, IRC_SEND_INTERVAL_MS } from "../../src/channels/limits.ts";

function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

test("a burst of IRC_SEND_BURST lines goes out at once; one past it waits one interval", () => {
  const c = clock();
  const bucket = new SendBucket(IRC_SEND_BURST, IRC_SEND_INTERVAL_MS, c.now);
  for (let i = 0; i < IRC_SEND_BURST; i++) expect(bucket.take()).toBe(0);
  expect(bucket.take()).toBe(IRC_SEND_INTERVAL_MS);
});

test("after the burst, lines are paced one per interval however many are queued", () => {
  const c = clock();
  const bucket = new SendBucket(IRC_SEND_BURST, IRC_SEND_INTERVAL_MS, c.now);
  for (let i = 0; i < IRC_SEND_BURST; i++) bucket.take();
  // a sender that waits as told: each further line goes out exactly one interval after the one before
  for (let i = 0; i < 5; i++) {
    const wait = bucket.take();
    expect(wait).toBe(IRC_SEND_INTERVAL_MS);
    c.advance(wait);
  }
});

test("a one-line reply after a quiet spell goes out at once, and the bucket refills to the burst, not past it", () => {
  const c = clock();
  const bucket = new SendBucket(IRC_SEND_BURST, IRC_SEND_INTERVAL_MS, c.now);
  for (let i = 0; i < IRC_SEND_BURST + 2; i++) c.advance(bucket.take());
  c.advance(IRC_SEND_INTERVAL_MS - 1);
  expect(bucket.take()).toBe(1);
  c.advance(1 + 3_600_000);
  for (let i = 0; i < IRC_SEND_BURST; i++) expect(bucket.take()).toBe(0);
  expect(bucket.take()).toBe(IRC_SEND_INTERVAL_MS);
});

test("takeNow lets IRC_SEND_BURST lines go at once and not one past them, taking nothing when it refuses", () => {
  const c = clock();
  const bucket = new SendBucket(IRC_SEND_BURST, IRC_SEND_INTERVAL_MS, c.now);
  for (let i = 0; i < IRC_SEND_BURST; i++) expect(bucket.takeNow()).toBe(true);
  expect(bucket.takeNow()).toBe(false);
  c.advance(IRC_SEND_INTERVAL_MS - 1);
  expect(bucket.takeNow()).toBe(false);
  // the refusals took no token: the line is due one interval after the burst, not later
  c.advance(1);
  expect(bucket.takeNow()).toBe(true);
  expect(bucket.take()).toBe(IRC_SEND_INTERVAL_MS);
});

test("after a waited line, takeNow refuses until the next interval: a long reply's writes carry one line each", () => {
  const c = clock();
  const bucket = new SendBucket(IRC_SEND_BURST, IRC_SEND_INTERVAL_MS, c.now);
  for (let i = 0; i < IRC_SEND_BURST; i++) bucket.take();
  c.advance(bucket.take());
  expect(bucket.takeNow()).toBe(false);
  c.advance(IRC_SEND_INTERVAL_MS);
  expect(bucket.takeNow()).toBe(true);
  expect(bucket.takeNow()).toBe(false);
});
