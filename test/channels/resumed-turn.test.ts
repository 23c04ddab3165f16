/**
 * A channel process killed mid-turn, its message answered again by the next process (the runner's resume), with real
 * agent hosts on SQLite and on PostgreSQL: the session holds the user's message once, then the answer. The turn that
 * is cut off waits forever for its provider; on PostgreSQL its death is its lease connection ending.
 */
import { SQL } from "bun";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
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

const dirs: string[] = [];
const schema = uniqueSchema("resumed_turn");
const testWithPostgres = await testNeeding("postgres");
afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  if (testWithPostgres === test) await dropSchema(schema);
});

const message: InboundMessage = { id: "m1", channel: "tg", chatId: "carol", chatKind: "dm", threadId: null, senderId: "carol", senderDisplay: "carol", senderIsBot: false, text: "are you there", replyTo: null, mentioned: false, timestamp: 0 };

function runnerOn(host: AgentHost) {
  const sent: string[] = [];
  const channel = recordingChannel(sent);
  const config = ChannelConfigSchema.parse({ dm_policy: "open" });
  const runner = new ChannelRunner({ channel, host, store: new ChannelStore(host.storage.channels, "tg"), pairings: host.storage.pairings, config, logger: createLogger("test") });
  return { runner, sent };
}

/** Two processes of the channel on one workspace's storage: the first is killed mid-turn, the second resumes. */
async function killedMidTurn(storage: Record<string, unknown>, env: Record<string, string | undefined>, kill: () => Promise<void>) {
  const dir = mkdtempSync(join(tmpdir(), "prx-resumed-turn-"));
  dirs.push(dir);
  const fake = startFakeOpenAI();
  const config = ConfigSchema.parse({ default_provider: "fake", default_model: "fake-model", providers: { fake: { base_url: fake.url } }, reliability: { retries: 0 }, storage });
  const first = await openAgentHost({ workspace: dir, config, env });
  const second = await openAgentHost({ workspace: dir, config, env });
  const killed = runnerOn(first);
  try {
    fake.enqueue({ type: "hang" });
    await killed.runner.onMessage(message);
    await waitFor(() => fake.chatRequests().length === 1, "the turn's request to the provider", 10_000);
    await kill();
    const next = runnerOn(second);
    expect(await next.runner.resume()).toBe(1);
    await next.runner.idle();
    expect(next.sent).toEqual(["echo: are you there"]);
    const stored = await second.sessions.messages(sessionIdOf(message));
    expect(stored.map((m) => [m.role, m.content])).toEqual([
      ["user", "are you there"],
      ["assistant", "echo: are you there"],
    ]);
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

testWithPostgres("PostgreSQL: a message whose turn was cut off and answered again by the next process is in its session once", async () => {
  await killedMidTurn({ backend: "postgres", schema }, { DATABASE_URL: TEST_DATABASE_URL }, async () => {
    // the dead process's connection ends, and with it its lease of the session
    const sql = new SQL(TEST_DATABASE_URL, { max: 1 });
    try {
      const ended = await sql.unsafe(
        "SELECT pg_terminate_backend(pid) AS ended FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 " +
          "AND classid = hashtext('prx.session')::oid AND objid = hashtext($1)::oid",
        [sessionIdOf(message)],
      );
      expect(ended.map((row: { ended: boolean }) => row.ended)).toEqual([true]);
    } finally {
      await sql.close();
    }
  });
}, 30_000);
