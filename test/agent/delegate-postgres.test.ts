/**
 * delegate on PostgreSQL storage, where each turn holds its session's lease on a pool of pool_max connections: a
 * helper's new session takes none, so a parent holding the only lease connection still gets its helper's answer.
 */
import { afterAll, expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost } from "../../src/agent/index.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { startFakeOpenAI } from "../fakes/openai-server.ts";
import { dropSchema, TEST_DATABASE_URL, testNeeding, uniqueSchema } from "../helpers/servers.ts";

const testWithPostgres = await testNeeding("postgres");
const schema = uniqueSchema("agent_tools_delegate");
const fake = startFakeOpenAI();
const dir = mkdtempSync(join(tmpdir(), "prx-agent-tools-delegate-pg-"));
afterAll(async () => {
  await fake.stop();
  await dropSchema(schema);
  rmSync(dir, { recursive: true, force: true });
});

testWithPostgres("with one lease connection, a parent holding it gets its helper's answer; the link is in PostgreSQL", async () => {
  const config = ConfigSchema.parse({
    default_provider: "fake",
    default_model: "fake-model",
    providers: { fake: { base_url: fake.url } },
    reliability: { retries: 0 },
    autonomy: { level: "full" },
    storage: { backend: "postgres", schema, pool_max: 1 },
  });
  const host = await openAgentHost({ workspace: dir, config, env: { DATABASE_URL: TEST_DATABASE_URL } });
  try {
    const result = await host.runTurn({ sessionId: "pg-parent", channel: "test", text: 'use tool delegate {"task":"from postgres"}' });
    const record = result.toolCalls.find((t) => t.call.name === "delegate")!;
    expect(record.result.error).toBeNull();
    const { session_id, answer } = JSON.parse(record.result.output) as { session_id: string; answer: string };
    expect(answer).toBe("echo: from postgres");
    expect(await host.storage.sessionLinks.parentOf(session_id)).toMatchObject({ parentId: "pg-parent", depth: 1 });
    expect((await host.sessions.messages(session_id)).map((m) => m.content)).toEqual(["from postgres", "echo: from postgres"]);
  } finally {
    await host.close();
  }
});
