import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { SUMMARY_INSTRUCTIONS } from "../../src/agent/compaction.ts";
import { CHAT_HELP, runChatCommand, type ChatState } from "../../src/chat/commands.ts";
import type { ChatOutput } from "../../src/chat/render.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";

let fake: FakeServer;
let host: AgentHost;
let dir: string;

beforeAll(async () => {
  fake = startFakeOpenAI();
  dir = mkdtempSync(join(tmpdir(), "prx-chat-compact-"));
  const config = ConfigSchema.parse({ default_provider: "fake", default_model: "fake-model", providers: { fake: { base_url: fake.url } }, reliability: { retries: 0 } });
  host = await openAgentHost({ workspace: dir, config });
});
afterAll(async () => {
  await host.close();
  await fake.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("/compact in prx chat", () => {
  const lines: string[] = [];
  const out = { info: (m: string) => lines.push(m), error: (m: string) => lines.push(`error: ${m}`), line: (m: string) => lines.push(m) } as unknown as ChatOutput;

  test("summarises the session so far with the chat's model; a second /compact has nothing new", async () => {
    expect(CHAT_HELP).toContain("/compact");
    const state: ChatState = { sessionId: "chat-c" };
    expect(await runChatCommand("/compact", state, host, out)).toBe(true);
    expect(lines.at(-1)).toBe("nothing to compact yet");
    await host.runTurn({ sessionId: "chat-c", channel: "chat", text: "the gate code is 4411" });
    fake.script((r) => ((r.body as { messages: Array<{ content: string }> }).messages[0]?.content === SUMMARY_INSTRUCTIONS ? { type: "text", text: "Gate code 4411." } : undefined));
    try {
      expect(await runChatCommand("/compact", state, host, out)).toBe(true);
      expect(lines.at(-1)).toBe("compacted 2 messages into the session summary (messages 1-2, by fake-model)");
      await runChatCommand("/compact", state, host, out);
      expect(lines.at(-1)).toBe("nothing new to compact");
    } finally {
      fake.script(undefined);
    }
    expect((await host.sessions.summary("chat-c"))?.content).toBe("Gate code 4411.");
  });

  test("a failing summariser leaves the session as it was and the error reaches the chat", async () => {
    await host.runTurn({ sessionId: "chat-f", channel: "chat", text: "hello" });
    fake.enqueue({ type: "error", status: 500 });
    await expect(runChatCommand("/compact", { sessionId: "chat-f" }, host, out)).rejects.toMatchObject({ code: "PROVIDER_HTTP" });
    expect(await host.sessions.summary("chat-f")).toBeNull();
    expect((await host.sessions.allMessages("chat-f")).length).toBe(2);
  });
});
