/**
 * The agent host of a channel process while it opens after the platform is connected (pending-host.ts): messages
 * that arrive meanwhile wait, bounded, and reach the runner in arrival order once it is open; a host that does not
 * open gives every waiting caller its error. The runner is a collaborator here (it records what it is handed).
 */
import { describe, expect, test } from "bun:test";
import { CHANNEL_MAX_PENDING } from "../../src/channels/limits.ts";
import { PendingHost } from "../../src/channels/pending-host.ts";
import type { InboundMessage } from "../../src/channels/types.ts";
import { PrxError } from "../../src/core/errors.ts";

function message(i: number): InboundMessage {
  return { id: `m${i}`, channel: "t", chatId: `c${i % 3}`, chatKind: "dm", threadId: null, senderId: "u", senderDisplay: "u", senderIsBot: false, text: `hi ${i}`, replyTo: null, mentioned: false, timestamp: 0 };
}

/** A runner that stores each message after a delay that shrinks with its number (a later one would overtake). */
function recordingRunner() {
  const stored: string[] = [];
  let inFlight = 0;
  const runner = {
    onMessage: async (m: InboundMessage) => {
      inFlight += 1;
      await Bun.sleep(Math.max(0, 10 - Number(m.id.slice(1))));
      stored.push(m.id);
      inFlight -= 1;
    },
    waitForCapacity: async () => {},
  };
  return { runner, stored, inFlight: () => inFlight };
}

describe("pending host", () => {
  test("messages that arrive before the host is open reach its runner once it opens, one after another, in arrival order", async () => {
    const pending = new PendingHost<{ runner: ReturnType<typeof recordingRunner>["runner"] }>();
    const { runner, stored, inFlight } = recordingRunner();
    const delivered = [0, 1, 2, 3, 4].map((i) => pending.onMessage(message(i)));
    await Bun.sleep(20);
    expect(stored).toEqual([]);
    expect(pending.waitingMessages).toBe(5);
    let concurrent = 0;
    const watch = setInterval(() => (concurrent = Math.max(concurrent, inFlight())), 0);
    pending.open({ runner });
    // a message arriving while the waiting ones are handed over goes after them
    delivered.push(pending.onMessage(message(5)));
    await Promise.all(delivered);
    clearInterval(watch);
    expect(stored).toEqual(["m0", "m1", "m2", "m3", "m4", "m5"]);
    expect(concurrent).toBeLessThanOrEqual(1);
    expect(pending.waitingMessages).toBe(0);
    // once nothing waits, messages go straight to the runner
    await pending.onMessage(message(6));
    expect(stored.at(-1)).toBe("m6");
  });

  test("a host that does not open gives every waiting caller its error; later callers get it at once", async () => {
    const pending = new PendingHost<{ runner: ReturnType<typeof recordingRunner>["runner"] }>();
    const waiting = [pending.onMessage(message(1)), pending.onMessage(message(2)), pending.when()];
    const failure = new PrxError("STORAGE", "database is locked");
    pending.fail(failure);
    for (const outcome of await Promise.allSettled(waiting)) expect(outcome).toEqual({ status: "rejected", reason: failure });
    await expect(pending.onMessage(message(3))).rejects.toBe(failure);
    await expect(pending.when()).rejects.toBe(failure);
    // nothing is left holding an adapter that reads the platform
    await pending.waitForCapacity();
  });

  test(`${CHANNEL_MAX_PENDING - 1} messages waiting for the host leave room; at ${CHANNEL_MAX_PENDING} the adapter waits until the host is open`, async () => {
    const pending = new PendingHost<{ runner: ReturnType<typeof recordingRunner>["runner"] }>();
    const { runner, stored } = recordingRunner();
    const delivered: Promise<void>[] = [];
    for (let i = 0; i < CHANNEL_MAX_PENDING - 1; i++) delivered.push(pending.onMessage(message(100 + i)));
    let roomBelow = false;
    await pending.waitForCapacity().then(() => (roomBelow = true));
    expect(roomBelow).toBe(true);
    delivered.push(pending.onMessage(message(100 + CHANNEL_MAX_PENDING - 1)));
    expect(pending.waitingMessages).toBe(CHANNEL_MAX_PENDING);
    let roomAt = false;
    const capacity = pending.waitForCapacity().then(() => (roomAt = true));
    await Bun.sleep(20);
    expect(roomAt).toBe(false);
    pending.open({ runner });
    await capacity;
    expect(roomAt).toBe(true);
    await Promise.all(delivered);
    expect(stored).toHaveLength(CHANNEL_MAX_PENDING);
  });
});
