/**
 * The runner's bounds with a host whose turns wait until released (the host is a collaborator here: the runner is
 * the unit): backpressure at CHANNEL_MAX_PENDING, typing repeated every TYPING_INTERVAL_MS, and the processed-id
 * retention of the store.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { CHANNEL_MAX_PENDING, PROCESSED_TTL_MS, TYPING_INTERVAL_MS } from "../../src/channels/limits.ts";
import { SqliteChannelStateStore, SqlitePairingStore as PairingStore } from "../../src/storage/index.ts";
import { ChannelRunner } from "../../src/channels/runner.ts";
import { ChannelStore } from "../../src/channels/store.ts";
import type { Channel, InboundMessage } from "../../src/channels/types.ts";
import { ChannelConfigSchema } from "../../src/config/schema.ts";
import { createLogger } from "../../src/core/logger.ts";
import { waitFor } from "../helpers/wait.ts";


function message(i: number, chat = i): InboundMessage {
  return { id: `m${i}`, channel: "t", chatId: `c${chat}`, chatKind: "dm", threadId: null, senderId: "u", senderDisplay: "u", senderIsBot: false, text: `hi ${i}`, replyTo: null, mentioned: false, timestamp: 0 };
}

function setup(options: { typingIntervalMs?: number; onInFlight?: (count: number) => void } = {}) {
  const sent: string[] = [];
  const typing: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const channel: Channel = {
    name: "t",
    kind: "webhook",
    capabilities: { edit: false, threads: false, maxMessageLength: 100, typing: true },
    start: async () => {},
    send: async (reply) => (sent.push(reply.text), "id"),
    typing: async (chatId) => void typing.push(chatId),
    health: () => ({ ok: true, detail: "" }),
    stop: async () => {},
  };
  const db = new Database(":memory:");
  const runner = new ChannelRunner({
    channel,
    host: { runTurn: async (input) => (await gate, { text: `re: ${input.text}` }) as never },
    store: new ChannelStore(new SqliteChannelStateStore(db), "t"),
    pairings: new PairingStore(db),
    config: ChannelConfigSchema.parse({ dm_policy: "open" }),
    logger: createLogger("test"),
    typingIntervalMs: options.typingIntervalMs,
    ...(options.onInFlight ? { onInFlight: options.onInFlight } : {}),
  });
  return { runner, sent, typing, release };
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

  test("the count of messages in flight is reported at every change: up per message stored, whichever chat, down to 0 once answered", async () => {
    const counts: number[] = [];
    const { runner, release } = setup({ onInFlight: (count) => counts.push(count) });
    await runner.onMessage(message(0, 1));
    await runner.onMessage(message(1, 1));
    await runner.onMessage(message(2, 2));
    expect(counts).toEqual([1, 2, 3]);
    release();
    await runner.idle();
    expect(counts).toEqual([1, 2, 3, 2, 1, 0]);
    await runner.onMessage(message(3, 1));
    await runner.idle();
    expect(counts).toEqual([1, 2, 3, 2, 1, 0, 1, 0]);
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
    const store = new ChannelStore(new SqliteChannelStateStore(new Database(":memory:"), () => now), "t", () => now);
    expect(await store.admit(message(1))).toBe(true);
    await store.done("m1");
    now += PROCESSED_TTL_MS;
    expect(await store.prune()).toBe(0);
    expect(await store.admit(message(1))).toBe(false);
    now += 1;
    expect(await store.prune()).toBe(1);
    expect(await store.admit(message(1))).toBe(true);
  });

  test(`typing is shown once for a turn shorter than the interval (${TYPING_INTERVAL_MS} ms) and again each interval a turn runs past it, then stops`, async () => {
    const quick = setup();
    quick.release();
    await quick.runner.onMessage(message(1));
    await quick.runner.idle();
    expect(quick.typing).toEqual(["c1"]);

    // a shorter interval passed in: the turn is held until typing was re-sent twice
    const held = setup({ typingIntervalMs: 10 });
    await held.runner.onMessage(message(2));
    await waitFor(() => held.typing.length >= 3, "typing re-sent while the turn runs");
    held.release();
    await held.runner.idle();
    const shown = held.typing.length;
    await Bun.sleep(50); // five intervals: typing would be sent again if it had not stopped
    expect(held.typing.length).toBe(shown);
    expect(held.sent).toEqual(["re: hi 2"]);
  });

  test("the first typing goes out after the turn's request to the provider, and before the reply of a turn that does not wait", async () => {
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let waits = true;
    const channel: Channel = {
      name: "t",
      kind: "webhook",
      capabilities: { edit: false, threads: false, maxMessageLength: 100, typing: true },
      start: async () => {},
      send: async (reply) => (order.push(`send ${reply.text}`), "id"),
      typing: async () => void order.push("typing"),
      health: () => ({ ok: true, detail: "" }),
      stop: async () => {},
    };
    const db = new Database(":memory:");
    const runner = new ChannelRunner({
      channel,
      host: {
        runTurn: async (input) => {
          // reading the session and building the prompt: promise steps, none waiting
          for (let i = 0; i < 50; i++) await null;
          order.push(`request ${input.text}`);
          if (waits) await gate; // the provider's answer: I/O
          return { text: `re: ${input.text}` } as never;
        },
      },
      store: new ChannelStore(new SqliteChannelStateStore(db), "t"),
      pairings: new PairingStore(db),
      config: ChannelConfigSchema.parse({ dm_policy: "open" }),
      logger: createLogger("test"),
    });
    await runner.onMessage(message(1));
    await waitFor(() => order.includes("typing"), "typing shown while the turn waits");
    expect(order).toEqual(["request hi 1", "typing"]);
    release();
    await runner.idle();
    waits = false;
    order.length = 0;
    await runner.onMessage(message(2, 1));
    await runner.idle();
    expect(order).toEqual(["request hi 2", "typing", "send re: hi 2"]);
  });
});

describe("who a turn is for", () => {
  test("a turn's fromOwner answers true for an owner in [channels.<name>] owners, false for anyone else", async () => {
    const asked: Array<[string, boolean]> = [];
    const channel: Channel = {
      name: "t",
      kind: "webhook",
      capabilities: { edit: false, threads: false, maxMessageLength: 100, typing: false },
      start: async () => {},
      send: async () => "id",
      typing: async () => {},
      health: () => ({ ok: true, detail: "" }),
      stop: async () => {},
    };
    const db = new Database(":memory:");
    const runner = new ChannelRunner({
      channel,
      host: { runTurn: async (input) => (asked.push([input.text, await input.fromOwner!()]), { text: "ok" }) as never },
      store: new ChannelStore(new SqliteChannelStateStore(db), "t"),
      pairings: new PairingStore(db),
      config: ChannelConfigSchema.parse({ dm_policy: "open", owners: ["boss"] }),
      logger: createLogger("test"),
    });
    await runner.onMessage({ ...message(1), senderId: "boss", text: "from the owner" });
    await runner.onMessage({ ...message(2), senderId: "guest", text: "from a guest" });
    await waitFor(() => asked.length === 2);
    expect(asked.sort()).toEqual([["from a guest", false], ["from the owner", true]]);
  });
});

describe("a reply answered in the platform's request", () => {
  test("is handed over once, as soon as it is stored; a redelivery meanwhile gets the stored reply; the delivery is then recorded", async () => {
    let releaseSend!: () => void;
    const sending = new Promise<void>((resolve) => (releaseSend = resolve));
    const channel: Channel = {
      name: "t",
      kind: "webhook",
      capabilities: { edit: false, threads: false, maxMessageLength: 100, typing: false },
      start: async () => {},
      send: async () => (await sending, "inline"),
      typing: async () => {},
      health: () => ({ ok: true, detail: "" }),
      stop: async () => {},
    };
    const db = new Database(":memory:");
    const store = new ChannelStore(new SqliteChannelStateStore(db), "t");
    const answers: Array<{ id: string; parts: string[]; state: string | undefined }> = [];
    const runner = new ChannelRunner({
      channel,
      host: { runTurn: async (input) => ({ text: `re: ${input.text}` }) as never },
      store,
      pairings: new PairingStore(db),
      config: ChannelConfigSchema.parse({ dm_policy: "open" }),
      logger: createLogger("test"),
      // the state is read synchronously: what the store holds when the caller is answered
      onAnswered: (id, parts) => answers.push({ id, parts, state: new SqliteChannelStateStore(db).entry("t", id)?.state }),
    });
    await runner.onMessage(message(1));
    await waitFor(() => answers.length === 1, "the reply handed over");
    expect(answers[0]).toEqual({ id: "m1", parts: ["re: hi 1"], state: "replied" });
    // delivered again while the delivery is being recorded: answered from the store, no second turn
    await runner.onMessage(message(1));
    await waitFor(() => answers.length === 2, "the redelivery answered");
    expect(answers[1]).toEqual({ id: "m1", parts: ["re: hi 1"], state: "replied" });
    releaseSend();
    await runner.idle();
    expect(answers).toHaveLength(2);
    expect((await store.entry("m1"))?.state).toBe("done");
    expect(runner.stats).toMatchObject({ answered: 1, duplicates: 1 });
  });

  test("a reply in parts: each part is recorded as it is sent, the last one with the done state; a restart sends only the rest", async () => {
    const db = new Database(":memory:");
    const store = new ChannelStore(new SqliteChannelStateStore(db), "t");
    const sent: string[] = [];
    let hang = true;
    const channel: Channel = {
      name: "t",
      kind: "webhook",
      capabilities: { edit: false, threads: false, maxMessageLength: 16, typing: false },
      start: async () => {},
      // the second part's send never returns while `hang`: the process is stopped mid-delivery
      send: (reply) => (sent.length === 1 && hang ? new Promise<string>(() => {}) : (sent.push(reply.text), Promise.resolve("id"))),
      typing: async () => {},
      health: () => ({ ok: true, detail: "" }),
      stop: async () => {},
    };
    let turns = 0;
    const runnerOn = () =>
      new ChannelRunner({
        channel,
        host: { runTurn: async () => (turns++, { text: "first part\n\nsecond part" }) as never },
        store,
        pairings: new PairingStore(db),
        config: ChannelConfigSchema.parse({ dm_policy: "open" }),
        logger: createLogger("test"),
      });
    const first = runnerOn();
    await first.onMessage(message(1));
    await waitFor(async () => (await store.entry("m1"))?.partsSent === 1, "the first part recorded");
    expect(await store.entry("m1")).toMatchObject({ state: "replied", partsSent: 1 });
    await first.close(0);
    hang = false;
    const second = runnerOn();
    expect(await second.resume()).toBe(1);
    await second.idle();
    expect(sent).toEqual(["first part", "second part"]);
    expect(turns).toBe(1);
    expect(await store.entry("m1")).toMatchObject({ state: "done", partsSent: 2 });
    expect(await store.open()).toEqual([]);
  });
});
