/**
 * A channel process killed mid-turn, its message answered by the next process (the runner's resume), with real agent
 * hosts on SQLite and on PostgreSQL: the session shows the user's message while the turn runs and holds it once, then
 * the answer. The turn that is cut off waits forever for its provider; on PostgreSQL its death is its lease connection
 * ending. A process that dies after its turn stored the answer and before the inbox recorded it (its inbox store never
 * returns from that write) has the answer delivered by the next one, with no second turn.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { STARTED_TURN_TAIL_MESSAGES } from "../../src/channels/limits.ts";
import { ChannelRunner, sessionIdOf } from "../../src/channels/runner.ts";
import { ChannelStore } from "../../src/channels/store.ts";
import type { ChannelStateStore } from "../../src/storage/types.ts";
import type { InboundMessage } from "../../src/channels/types.ts";
import { ChannelConfigSchema, ConfigSchema } from "../../src/config/schema.ts";
import { createLogger } from "../../src/core/logger.ts";
import { startFakeOpenAI } from "../fakes/openai-server.ts";
import { dropSchema, TEST_DATABASE_URL, testNeeding, uniqueSchema } from "../helpers/servers.ts";
import { waitFor } from "../helpers/wait.ts";
import { recordingChannel } from "./harness.ts";
import { diesIn } from "../helpers/dies-in.ts";
import { endSessionLease } from "../helpers/session-lease.ts";

const dirs: string[] = [];
const schema = uniqueSchema("resumed_turn");
const answeredSchema = uniqueSchema("answered_turn");
const displacedSchema = uniqueSchema("displaced_turn");
const displacedAnswerSchema = uniqueSchema("displaced_answer");
const testWithPostgres = await testNeeding("postgres");
afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  if (testWithPostgres === test) for (const name of [schema, answeredSchema, displacedSchema, displacedAnswerSchema]) await dropSchema(name);
});

const message: InboundMessage = { id: "m1", channel: "tg", chatId: "carol", chatKind: "dm", threadId: null, senderId: "carol", senderDisplay: "carol", senderIsBot: false, text: "are you there", replyTo: null, mentioned: false, timestamp: 0 };

function runnerOn(host: AgentHost, state: ChannelStateStore = host.storage.channels) {
  const sent: string[] = [];
  const channel = recordingChannel(sent);
  const config = ChannelConfigSchema.parse({ dm_policy: "open" });
  const runner = new ChannelRunner({ channel, host, store: new ChannelStore(state, "tg"), pairings: host.storage.pairings, config, logger: createLogger("test") });
  return { runner, sent };
}

async function openPair(storage: Record<string, unknown>, env: Record<string, string | undefined>) {
  const dir = mkdtempSync(join(tmpdir(), "prx-resumed-turn-"));
  dirs.push(dir);
  const fake = startFakeOpenAI();
  const config = ConfigSchema.parse({ default_provider: "fake", default_model: "fake-model", providers: { fake: { base_url: fake.url } }, reliability: { retries: 0 }, storage });
  const first = await openAgentHost({ workspace: dir, config, env });
  const second = await openAgentHost({ workspace: dir, config, env });
  return { fake, first, second };
}

const conversation = (stored: Array<{ role: string; content: string }>) => stored.map((m) => [m.role, m.content]);

/** Another turn's question and answer, written to the chat's session after the message's (an API turn on the session). */
const anotherTurn: Array<{ role: "user" | "assistant"; content: string }> = [
  { role: "user", content: "another question" },
  { role: "assistant", content: "another answer" },
];

/**
 * The next process resumes the message: the session holds the user's message once, then `answer` (after another
 * turn's messages when `displaced`); what it sent.
 */
async function answeredOnceBy(host: AgentHost, answer: string, displaced = false): Promise<string[]> {
  const next = runnerOn(host);
  expect(await next.runner.resume()).toBe(1);
  await next.runner.idle();
  expect(conversation(await host.sessions.messages(sessionIdOf(message)))).toEqual([
    ["user", "are you there"],
    ...(displaced ? conversation(anotherTurn) : []),
    ["assistant", answer],
  ]);
  return next.sent;
}

/**
 * Two processes of the channel on one workspace's storage: the first is killed mid-turn, the second resumes.
 * `displaced`: another turn wrote to the session between the two (the message is no longer the session's last).
 */
async function killedMidTurn(storage: Record<string, unknown>, env: Record<string, string | undefined>, kill: () => Promise<void>, displaced = false) {
  const { fake, first, second } = await openPair(storage, env);
  const killed = runnerOn(first);
  try {
    fake.enqueue({ type: "hang" });
    await killed.runner.onMessage(message);
    await waitFor(() => fake.chatRequests().length === 1, "the turn's request to the provider", 10_000);
    // while the turn runs, the session shows the user's message, and the inbox knows it is there
    expect(conversation(await second.sessions.messages(sessionIdOf(message)))).toEqual([["user", "are you there"]]);
    expect((await first.storage.channels.entry("tg", message.id))?.state).toBe("started");
    await kill();
    if (displaced) await second.sessions.append(sessionIdOf(message), anotherTurn);
    expect(await answeredOnceBy(second, "echo: are you there", displaced)).toEqual(["echo: are you there"]);
    // the rerun continued the stored message: one request of its own, no second user message
    expect(fake.chatRequests().length).toBe(2);
    // with the history up to its own message: another turn's messages after it are not in its prompt
    const asked = fake.chatRequests()[1]!.body.messages.map((m: { content: string }) => m.content);
    expect(asked.at(-1)).toBe("are you there");
    expect(asked).not.toContain("another question");
  } finally {
    await fake.stop();
    await killed.runner.idle();
    await second.close();
    await first.close().catch(() => undefined); // its lease connection may be gone
  }
}

test("SQLite: a message whose turn was cut off and answered again by the next process is in its session once", async () => {
  await killedMidTurn({}, {}, async () => {});
}, 30_000);

test("SQLite: a message whose turn was cut off, then another turn on its session: it is answered, not the other turn's", async () => {
  await killedMidTurn({}, {}, async () => {}, true);
}, 30_000);

/** The dead process's connection ends, and with it its lease of the session. */
async function endLease(): Promise<void> {
  expect(await endSessionLease(sessionIdOf(message))).toBe(1);
}

testWithPostgres("PostgreSQL: a message whose turn was cut off and answered again by the next process is in its session once", async () => {
  await killedMidTurn({ backend: "postgres", schema }, { DATABASE_URL: TEST_DATABASE_URL }, endLease);
}, 30_000);

testWithPostgres("PostgreSQL: a message whose turn was cut off, then another turn on its session: it is answered, not the other turn's", async () => {
  await killedMidTurn({ backend: "postgres", schema: displacedSchema }, { DATABASE_URL: TEST_DATABASE_URL }, endLease, true);
}, 30_000);

/**
 * A process dies after its turn stored the answer in the session: before the inbox recorded it, the next process
 * delivers that answer once; in the write recording it delivered (after the platform accepted it), the next one sends
 * the same answer again. Never a second turn.
 */
async function killedAfterAnswer(storage: Record<string, unknown>, env: Record<string, string | undefined>, dies: "replied" | "delivered", displaced = false) {
  const { fake, first, second } = await openPair(storage, env);
  const recording = diesIn(first.storage.channels, dies);
  const killed = runnerOn(first, recording.dying);
  try {
    fake.enqueue({ type: "text", text: "the only answer" });
    await killed.runner.onMessage(message);
    await recording.reached;
    expect(killed.sent).toEqual(dies === "delivered" ? ["the only answer"] : []);
    // another turn's messages after the answer: its answer is not taken for this message's
    if (displaced) await second.sessions.append(sessionIdOf(message), anotherTurn);
    const next = runnerOn(second);
    expect(await next.runner.resume()).toBe(1);
    await next.runner.idle();
    expect(conversation(await second.sessions.messages(sessionIdOf(message)))).toEqual([
      ["user", "are you there"],
      ["assistant", "the only answer"],
      ...(displaced ? conversation(anotherTurn) : []),
    ]);
    expect(next.sent).toEqual(["the only answer"]);
    expect(fake.chatRequests().length).toBe(1);
    expect(await second.storage.channels.entry("tg", message.id)).toMatchObject({ state: "done", reply: ["the only answer"], partsSent: 1 });
    // a third start finds nothing left to answer
    expect(await runnerOn(second).runner.resume()).toBe(0);
  } finally {
    await fake.stop();
    await second.close();
    await first.close();
  }
}

test("SQLite: a process that died after its turn stored the answer has it delivered once by the next, with no second turn", async () => {
  await killedAfterAnswer({}, {}, "replied");
}, 30_000);

test("SQLite: a process that died recording a delivered answer has the same answer sent again by the next, with no second turn", async () => {
  await killedAfterAnswer({}, {}, "delivered");
}, 30_000);

testWithPostgres("PostgreSQL: a process that died after its turn stored the answer has it delivered once by the next, with no second turn", async () => {
  await killedAfterAnswer({ backend: "postgres", schema: answeredSchema }, { DATABASE_URL: TEST_DATABASE_URL }, "replied");
}, 30_000);

test("SQLite: a stored answer followed by another turn on the session: the message's own answer is delivered", async () => {
  await killedAfterAnswer({}, {}, "replied", true);
}, 30_000);

testWithPostgres("PostgreSQL: a stored answer followed by another turn on the session: the message's own answer is delivered", async () => {
  await killedAfterAnswer({ backend: "postgres", schema: displacedAnswerSchema }, { DATABASE_URL: TEST_DATABASE_URL }, "replied", true);
}, 30_000);

/** A turn that stored its answer, then `after` reminders written to the chat before the next process starts. */
async function resumedWithRemindersAfter(after: number): Promise<{ sent: string[]; requests: number }> {
  const { fake, first, second } = await openPair({}, {});
  const recording = diesIn(first.storage.channels, "replied");
  const killed = runnerOn(first, recording.dying);
  try {
    fake.enqueue({ type: "text", text: "the only answer" });
    await killed.runner.onMessage(message);
    await recording.reached;
    const reminders = Array.from({ length: after }, (_, i) => ({ role: "assistant" as const, content: `reminder ${i}` }));
    await second.sessions.append(sessionIdOf(message), reminders);
    const next = runnerOn(second);
    expect(await next.runner.resume()).toBe(1);
    await next.runner.idle();
    return { sent: next.sent, requests: fake.chatRequests().length };
  } finally {
    await fake.stop();
    await second.close();
    await first.close();
  }
}

test("the stored answer is the one after the message's user message, whatever the session got after it", async () => {
  // a reminder delivered to the chat meanwhile (the cron tool's jobs write to the chat's session)
  expect(await resumedWithRemindersAfter(1)).toEqual({ sent: ["the only answer"], requests: 1 });
}, 30_000);

test("the user's message as the STARTED_TURN_TAIL_MESSAGES-th newest: its stored answer is delivered", async () => {
  // the user's message, its answer, then reminders: the message is the limit-th newest
  expect(await resumedWithRemindersAfter(STARTED_TURN_TAIL_MESSAGES - 2)).toEqual({ sent: ["the only answer"], requests: 1 });
}, 30_000);

test("the user's message one past STARTED_TURN_TAIL_MESSAGES: not found among them, its turn runs on from the session", async () => {
  const { sent, requests } = await resumedWithRemindersAfter(STARTED_TURN_TAIL_MESSAGES - 1);
  expect(requests).toBe(2);
  expect(sent).toHaveLength(1);
  expect(sent[0]).not.toBe("the only answer");
}, 30_000);

test("a turn that fails leaves the user's message in the session once, with the notice sent and the message done", async () => {
  const { fake, first, second } = await openPair({}, {});
  const runner = runnerOn(first);
  try {
    fake.enqueue({ type: "error", status: 400, message: "bad request" });
    await runner.runner.onMessage(message);
    await runner.runner.idle();
    expect(runner.sent).toHaveLength(1);
    expect(runner.sent[0]).toStartWith("Sorry, I could not answer that");
    expect(conversation(await first.sessions.messages(sessionIdOf(message)))).toEqual([["user", "are you there"]]);
    expect((await first.storage.channels.entry("tg", message.id))?.state).toBe("done");
    expect(await runnerOn(second).runner.resume()).toBe(0);
  } finally {
    await fake.stop();
    await second.close();
    await first.close();
  }
}, 30_000);
