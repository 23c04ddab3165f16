/**
 * The answer to a forwarded request whose message is stored (a platform's webhook through the gateway): given once the
 * turn the message started has gone as far as it goes without waiting, so the gateway relaying the 200 and the
 * platform taking it do not come between the message and its request to the provider. The adapter's base is the unit;
 * the runner and a host whose turn does its work in promise steps, then waits on a gate, are its collaborators.
 */
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { PlatformChannel } from "../../src/channels/base.ts";
import { ChannelRunner } from "../../src/channels/runner.ts";
import { ChannelStore } from "../../src/channels/store.ts";
import type { ForwardedResponse, InboundMessage, OnMessage } from "../../src/channels/types.ts";
import { ChannelConfigSchema } from "../../src/config/schema.ts";
import { createLogger } from "../../src/core/logger.ts";
import { SqliteChannelStateStore, SqlitePairingStore as PairingStore } from "../../src/storage/index.ts";

/** Steps a turn takes before its request to the provider (reading the session, building the prompt), none waiting. */
const STEPS_BEFORE_REQUEST = 50;

class ForwardingChannel extends PlatformChannel {
  readonly kind = "webhook" as const;
  readonly capabilities = { edit: false, threads: false, maxMessageLength: 100, typing: false };
  async start(): Promise<void> {}
  async send(): Promise<string> {
    return "sent";
  }
  accept(onMessage: OnMessage, message: InboundMessage): Promise<ForwardedResponse> {
    return this.acceptForwarded(onMessage, message);
  }
}

function setup() {
  const logger = createLogger("test");
  const config = ChannelConfigSchema.parse({ dm_policy: "open" });
  const channel = new ForwardingChannel({ name: "t", config, env: {}, logger, cursor: { get: () => null, set: () => {} } });
  const requested: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const db = new Database(":memory:");
  const runner = new ChannelRunner({
    channel,
    host: {
      runTurn: async (input) => {
        for (let i = 0; i < STEPS_BEFORE_REQUEST; i++) await null;
        requested.push(input.text);
        await gate; // the provider's answer: I/O, which the 200 does not wait for
        return { text: `re: ${input.text}` } as never;
      },
    },
    store: new ChannelStore(new SqliteChannelStateStore(db), "t"),
    pairings: new PairingStore(db),
    config,
    logger,
  });
  return { channel, runner, requested, release };
}

const message: InboundMessage = { id: "m1", channel: "t", chatId: "c1", chatKind: "dm", threadId: null, senderId: "u", senderDisplay: "u", senderIsBot: false, text: "hello", replyTo: null, mentioned: true, timestamp: 0 };

test("a stored message's 200 is given once its turn's request to the provider is on its way, not after the turn", async () => {
  const { channel, runner, requested, release } = setup();
  const answer = await channel.accept(runner.onMessage, message);
  expect(answer.status).toBe(200);
  expect(requested).toEqual(["hello"]);
  expect(runner.inFlight).toBe(1);
  release();
  await runner.idle();
  expect(runner.stats.answered).toBe(1);
});

test("a message that could not be stored is answered 503 at once, so that the platform retries", async () => {
  const { channel } = setup();
  const answer = await channel.accept(async () => {
    throw new Error("the database is locked");
  }, message);
  expect(answer.status).toBe(503);
  expect(JSON.parse(answer.body)).toEqual({ error: "not stored; retry" });
});
