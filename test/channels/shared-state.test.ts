/**
 * Channel processes on two hosts sharing PostgreSQL (`[storage] backend = "postgres"`): a message delivered to
 * both is answered once; a sender paired through one host is let in by the other; a process restarted on another
 * host resumes what the first left unanswered.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ChannelRunner } from "../../src/channels/runner.ts";
import { ChannelStore } from "../../src/channels/store.ts";
import type { InboundMessage } from "../../src/channels/types.ts";
import { ChannelConfigSchema } from "../../src/config/schema.ts";
import { createLogger } from "../../src/core/logger.ts";
import { pgStorage, type PgStorage } from "../../src/storage/postgres/index.ts";
import { dropSchema, TEST_DATABASE_URL, testNeeding, uniqueSchema } from "../helpers/servers.ts";
import { recordingChannel } from "./harness.ts";

const schema = uniqueSchema("channels");
const hosts: PgStorage[] = [];
const testWithPostgres = await testNeeding("postgres");

beforeAll(async () => {
  if (testWithPostgres !== test) return;
  for (let i = 0; i < 2; i++) hosts.push(await pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 2 }));
});
afterAll(async () => {
  for (const h of hosts) await h.close();
  if (hosts.length > 0) await dropSchema(schema);
});

function message(id: string, sender = "alice", text = `hello ${id}`): InboundMessage {
  return { id, channel: "tg", chatId: sender, chatKind: "dm", threadId: null, senderId: sender, senderDisplay: sender, senderIsBot: false, text, replyTo: null, mentioned: false, timestamp: 0 };
}

function runnerOn(storage: PgStorage, policy: "open" | "pairing", turns: string[] = [], gate: Promise<void> = Promise.resolve()) {
  const sent: string[] = [];
  const channel = recordingChannel(sent);
  const runner = new ChannelRunner({
    channel,
    host: { runTurn: async (input) => (turns.push(input.text), await gate, { text: `re: ${input.text}` }) as never },
    store: new ChannelStore(storage.channels, "tg"),
    pairings: storage.pairings,
    config: ChannelConfigSchema.parse({ dm_policy: policy }),
    logger: createLogger("test"),
  });
  return { runner, sent };
}

const it = (name: string, body: () => Promise<void>) => testWithPostgres(name, body);

it("a message delivered to processes on two hosts is answered once", async () => {
  const turns: string[] = [];
  const a = runnerOn(hosts[0]!, "open", turns);
  const b = runnerOn(hosts[1]!, "open", turns);
  await Promise.all([a.runner.onMessage(message("m1")), b.runner.onMessage(message("m1"))]);
  await Promise.all([a.runner.idle(), b.runner.idle()]);
  expect(turns).toEqual(["hello m1"]);
  expect([...a.sent, ...b.sent]).toEqual(["re: hello m1"]);
  expect(a.runner.stats.duplicates + b.runner.stats.duplicates).toBe(1);
});

it("a sender paired through one host is let in by a process on the other", async () => {
  const a = runnerOn(hosts[0]!, "pairing");
  await a.runner.onMessage(message("p1", "bob"));
  const code = /Pairing code: (\w+)/.exec(a.sent[0] ?? "")?.[1];
  expect(code).toBeDefined();
  await hosts[1]!.pairings.approve(code!);
  const b = runnerOn(hosts[1]!, "pairing");
  await b.runner.onMessage(message("p2", "bob", "now?"));
  await b.runner.idle();
  expect(b.sent).toEqual(["re: now?"]);
});

it("a process restarted on another host resumes the message the first left unanswered", async () => {
  const stuck = runnerOn(hosts[0]!, "open", [], new Promise<void>(() => {}));
  await stuck.runner.onMessage(message("r1", "carol", "are you there"));
  // the first process dies mid-turn; a new one starts on the other host
  const b = runnerOn(hosts[1]!, "open");
  expect(await b.runner.resume()).toBe(1);
  await b.runner.idle();
  expect(b.sent).toEqual(["re: are you there"]);
});
