/**
 * The runner's bounds with a host whose turns wait until released (the host is a collaborator here: the runner is
 * the unit): backpressure at CHANNEL_MAX_PENDING, and the processed-id retention of the store.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { retryAfterMs } from "../../src/channels/backoff.ts";
import { CHANNEL_MAX_PENDING, PLATFORM_RETRY_AFTER_MAX_MS, PROCESSED_TTL_MS } from "../../src/channels/limits.ts";
import { PairingStore } from "../../src/channels/pairing.ts";
import { ChannelRunner } from "../../src/channels/runner.ts";
import { ChannelStore } from "../../src/channels/store.ts";
import type { Channel, InboundMessage } from "../../src/channels/types.ts";
import { ChannelConfigSchema } from "../../src/config/schema.ts";
import { createLogger } from "../../src/core/logger.ts";

function message(i: number, chat = i): InboundMessage {
  return { id: `m${i}`, channel: "t", chatId: `c${chat}`, chatKind: "dm", threadId: null, senderId: "u", senderDisplay: "u", senderIsBot: false, text: `hi ${i}`, replyTo: null, mentioned: false, timestamp: 0 };
}

function setup() {
  const sent: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const channel: Channel = {
    name: "t",
    kind: "webhook",
    capabilities: { edit: false, threads: false, maxMessageLength: 100, typing: false },
    start: async () => {},
    send: async (reply) => (sent.push(reply.text), "id"),
    typing: async () => {},
    health: () => ({ ok: true, detail: "" }),
    stop: async () => {},
  };
  const db = new Database(":memory:");
  const runner = new ChannelRunner({
    channel,
    host: { runTurn: async (input) => (await gate, { text: `re: ${input.text}` }) as never },
    store: new ChannelStore(db, "t"),
    pairings: new PairingStore(db),
    config: ChannelConfigSchema.parse({ dm_policy: "open" }),
    logger: createLogger("test"),
  });
  return { runner, sent, release };
}

describe("channel runner bounds", () => {
  test(`${CHANNEL_MAX_PENDING - 1} pending messages leave room; at ${CHANNEL_MAX_PENDING} the adapter waits until one is answered`, async () => {
    const { runner, sent, release } = setup();
    for (let i = 0; i < CHANNEL_MAX_PENDING - 1; i++) await runner.onMessage(message(i));
    let waited = false;
    await runner.waitForCapacity().then(() => (waited = true));
    expect(waited).toBe(true);
    await runner.onMessage(message(CHANNEL_MAX_PENDING - 1));
    expect(runner.inFlight).toBe(CHANNEL_MAX_PENDING);
    let resumed = false;
    const capacity = runner.waitForCapacity().then(() => (resumed = true));
    await Bun.sleep(20);
    expect(resumed).toBe(false);
    release();
    await capacity;
    expect(resumed).toBe(true);
    await runner.idle();
    expect(sent).toHaveLength(CHANNEL_MAX_PENDING);
  });

  test("messages of one chat are answered in order, one turn at a time", async () => {
    const { runner, sent, release } = setup();
    for (let i = 0; i < 5; i++) await runner.onMessage(message(i, 1));
    release();
    await runner.idle();
    expect(sent).toEqual(["re: hi 0", "re: hi 1", "re: hi 2", "re: hi 3", "re: hi 4"]);
  });

  test(`processed ids are kept ${PROCESSED_TTL_MS} ms: a redelivery just inside is a duplicate, one just past is pruned`, async () => {
    let now = 1_000_000;
    const store = new ChannelStore(new Database(":memory:"), "t", () => now);
    expect(await store.admit(message(1))).toBe(true);
    await store.done("m1");
    now += PROCESSED_TTL_MS;
    expect(await store.prune()).toBe(0);
    expect(await store.admit(message(1))).toBe(false);
    now += 1;
    expect(await store.prune()).toBe(1);
    expect(await store.admit(message(1))).toBe(true);
  });

  test(`a platform's retry_after is honoured up to ${PLATFORM_RETRY_AFTER_MAX_MS} ms, and capped past it`, () => {
    expect(retryAfterMs(PLATFORM_RETRY_AFTER_MAX_MS / 1000, 1)).toBe(PLATFORM_RETRY_AFTER_MAX_MS);
    expect(retryAfterMs(PLATFORM_RETRY_AFTER_MAX_MS / 1000 + 1, 1)).toBe(PLATFORM_RETRY_AFTER_MAX_MS);
    expect(retryAfterMs(undefined, 777)).toBe(777);
  });
});
