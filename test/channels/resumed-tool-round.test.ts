/**
 * A channel turn cut off after its first tool round, with real agent hosts on SQLite and on PostgreSQL: the round is
 * in the session as soon as it completed, so the next process (the runner's resume) asks the provider with it in
 * context and does not run its call again. The tool appends to a workspace file: it holds one line after the restart.
 * On PostgreSQL the first process's death is its lease connection ending.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { ChannelRunner, sessionIdOf } from "../../src/channels/runner.ts";
import { ChannelStore } from "../../src/channels/store.ts";
import type { InboundMessage } from "../../src/channels/types.ts";
import { ChannelConfigSchema, ConfigSchema } from "../../src/config/schema.ts";
import { createLogger } from "../../src/core/logger.ts";
import { startFakeOpenAI } from "../fakes/openai-server.ts";
import { dropSchema, TEST_DATABASE_URL, testNeeding, uniqueSchema } from "../helpers/servers.ts";
import { waitFor } from "../helpers/wait.ts";
import { recordingChannel } from "./harness.ts";
import { endSessionLease } from "../helpers/session-lease.ts";

const dirs: string[] = [];
const schema = uniqueSchema("durable_rounds_channel");
const testWithPostgres = await testNeeding("postgres");
afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  if (testWithPostgres === test) await dropSchema(schema);
});

const message: InboundMessage = { id: "m1", channel: "tg", chatId: "carol", chatKind: "dm", threadId: null, senderId: "carol", senderDisplay: "carol", senderIsBot: false, text: "tick once", replyTo: null, mentioned: false, timestamp: 0 };

function runnerOn(host: AgentHost) {
  const sent: string[] = [];
  const config = ChannelConfigSchema.parse({ dm_policy: "open" });
  const runner = new ChannelRunner({ channel: recordingChannel(sent), host, store: new ChannelStore(host.storage.channels, "tg"), pairings: host.storage.pairings, config, logger: createLogger("test") });
  return { runner, sent };
}

/** The tools offered to the rerun's model call (none: the turn's tool iterations are spent). */
async function cutOffAfterARound(storage: Record<string, unknown>, env: Record<string, string | undefined>, kill: () => Promise<void>, maxToolIterations = 10): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), "prx-resumed-round-"));
  dirs.push(dir);
  const fake = startFakeOpenAI();
  const config = ConfigSchema.parse({
    default_provider: "fake",
    default_model: "fake-model",
    providers: { fake: { base_url: fake.url } },
    reliability: { retries: 0 },
    autonomy: { level: "full" },
    agent: { max_tool_iterations: maxToolIterations },
    storage,
  });
  const first = await openAgentHost({ workspace: dir, config, env });
  const second = await openAgentHost({ workspace: dir, config, env });
  const killed = runnerOn(first);
  const ticks = () => readFileSync(join(dir, "ticks.log"), "utf8");
  try {
    fake.enqueue({ type: "tool_calls", calls: [{ id: "call_tick", name: "file_write", arguments: { path: "ticks.log", content: "tick\n", append: true } }] }, { type: "hang" });
    await killed.runner.onMessage(message);
    // the model call after the round is asked once the round is written
    await waitFor(() => fake.chatRequests().length === 2, "the model call after the tool round", 10_000);
    expect(ticks()).toBe("tick\n");
    const stored = async () => (await second.sessions.messages(sessionIdOf(message))).map((m) => [m.role, m.toolCalls?.map((c) => c.id) ?? m.toolCallId ?? m.content]);
    expect(await stored()).toEqual([
      ["user", "tick once"],
      ["assistant", ["call_tick"]],
      ["tool", "call_tick"],
    ]);
    await kill();
    fake.enqueue({ type: "text", text: "ticked" });
    const next = runnerOn(second);
    expect(await next.runner.resume()).toBe(1);
    await next.runner.idle();
    expect(next.sent).toEqual(["ticked"]);
    expect(ticks()).toBe("tick\n");
    expect(await stored()).toEqual([
      ["user", "tick once"],
      ["assistant", ["call_tick"]],
      ["tool", "call_tick"],
      ["assistant", "ticked"],
    ]);
    // one model call of the rerun, with the stored round after the user's message
    const requests = fake.chatRequests();
    expect(requests).toHaveLength(3);
    const rerun = requests[2]!.body as { messages: Array<{ role: string; content: unknown; tool_call_id?: string; tool_calls?: Array<{ id: string }> }>; tools?: Array<{ function: { name: string } }> };
    const sentMessages = rerun.messages;
    expect(sentMessages.slice(-3).map((m) => [m.role, m.tool_calls?.map((c) => c.id) ?? m.tool_call_id ?? m.content])).toEqual([
      ["user", "tick once"],
      ["assistant", ["call_tick"]],
      ["tool", "call_tick"],
    ]);
    return (rerun.tools ?? []).map((tool) => tool.function.name);
  } finally {
    await fake.stop();
    await killed.runner.idle();
    await second.close();
    await first.close().catch(() => undefined); // its lease connection may be gone
  }
}

test("SQLite: a turn cut off after a tool round goes on from the stored round; the tool ran once, one reply", async () => {
  await cutOffAfterARound({}, {}, async () => {});
}, 30_000);

testWithPostgres("PostgreSQL: a turn cut off after a tool round goes on from the stored round; the tool ran once, one reply", async () => {
  await cutOffAfterARound({ backend: "postgres", schema }, { DATABASE_URL: TEST_DATABASE_URL }, async () => {
    expect(await endSessionLease(sessionIdOf(message))).toBe(1);
  });
}, 30_000);

test("the stored rounds count toward max_tool_iterations: one stored round at a limit of 1 leaves the rerun no tools, at 2 it has them", async () => {
  expect(await cutOffAfterARound({}, {}, async () => {}, 1)).toEqual([]);
  expect(await cutOffAfterARound({}, {}, async () => {}, 2)).toContain("file_write");
}, 30_000);
