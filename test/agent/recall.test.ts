import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { estimateTokens, memoryLines, PROMPT_BYTES_PER_TOKEN } from "../../src/agent/prompt.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import type { MemoryEntry } from "../../src/memory/types.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";

let fake: FakeServer;
const hosts: AgentHost[] = [];
const dirs: string[] = [];

beforeAll(() => {
  fake = startFakeOpenAI();
});
afterAll(async () => {
  for (const h of hosts) await h.close();
  await fake.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function host(memory: Record<string, unknown> = {}): Promise<AgentHost> {
  const dir = mkdtempSync(join(tmpdir(), "prx-recall-"));
  dirs.push(dir);
  const config = ConfigSchema.parse({
    default_provider: "fake",
    default_model: "fake-model",
    providers: { fake: { base_url: fake.url } },
    reliability: { retries: 0 },
    memory,
  });
  const opened = await openAgentHost({ workspace: dir, config });
  hosts.push(opened);
  return opened;
}

/** The system prompt of the last request the provider received. */
function lastSystemPrompt(): string {
  const body = fake.chatRequests().at(-1)!.body as { messages: Array<{ role: string; content: string }> };
  return body.messages.find((m) => m.role === "system")!.content;
}

function entry(key: string, content: string, extra: Partial<MemoryEntry> = {}): MemoryEntry {
  return { id: key, key, content, category: "core", timestamp: "2026-01-01T00:00:00.000Z", ...extra };
}

describe("auto_recall", () => {
  test("a question no memory is about adds no memory to the prompt; a related one adds only that one", async () => {
    const h = await host();
    await h.memory.store("cat", "my cat is Tom", "core");
    await h.memory.store("bank_pin", "my bank pin is 1234", "core");
    await h.runTurn({ sessionId: "s1", channel: "test", text: "tell me about my weekend plans" });
    expect(lastSystemPrompt()).not.toContain("Relevant memories");
    // nothing to match at all: not the most recent memories either
    await h.runTurn({ sessionId: "s1", channel: "test", text: "👍 !!" });
    expect(lastSystemPrompt()).not.toContain("Relevant memories");
    await h.runTurn({ sessionId: "s1", channel: "test", text: "what is my cat called?" });
    const prompt = lastSystemPrompt();
    expect(prompt).toContain("- cat: my cat is Tom");
    expect(prompt).not.toContain("1234");
  });

  test("a private memory never reaches the system prompt, even as the best match; memory_recall still finds it", async () => {
    const h = await host();
    await h.memory.store("bank_pin", "bank card PIN: 1234", "finance", null, { private: true });
    await h.memory.store("bank", "main bank is Monzo; the card PIN is in the password manager", "finance");
    await h.runTurn({ sessionId: "s2", channel: "test", text: "what is my bank PIN?" });
    const prompt = lastSystemPrompt();
    expect(prompt).toContain("- bank: main bank is Monzo");
    expect(prompt).not.toContain("1234");
    const explicit = await h.runTurn({
      sessionId: "s2",
      channel: "test",
      text: 'use tool memory_recall {"query":"bank PIN"}',
    });
    expect(explicit.toolCalls[0]!.result.output).toContain("bank_pin [finance, score 1.00, private] bank card PIN: 1234");
    expect(lastSystemPrompt()).not.toContain("1234");
  });

  test("memory_store with private: true stores a private memory", async () => {
    const h = await host();
    const result = await h.runTurn({
      sessionId: "s3",
      channel: "test",
      text: 'use tool memory_store {"key":"alarm","content":"house alarm code 4821","private":true}',
    });
    expect(result.toolCalls[0]!.result.output).toBe('stored private memory "alarm"');
    expect((await h.memory.get("alarm"))?.private).toBe(true);
    await h.runTurn({ sessionId: "s3", channel: "test", text: "what is the house alarm code?" });
    expect(lastSystemPrompt()).not.toContain("4821");
  });

  test("memory.recall_max_tokens caps the memories in the prompt", async () => {
    const h = await host({ recall_max_tokens: 3 });
    await h.memory.store("tz", "Lisbon", "core"); // "- tz: Lisbon": 12 bytes, 3 tokens
    await h.runTurn({ sessionId: "s4", channel: "test", text: "where do I live, Lisbon?" });
    expect(lastSystemPrompt()).toContain("- tz: Lisbon");
    await h.memory.store("tz", "Lisbon!", "core"); // 13 bytes: 4 tokens, over the cap
    await h.runTurn({ sessionId: "s4", channel: "test", text: "where do I live, Lisbon?" });
    expect(lastSystemPrompt()).not.toContain("Relevant memories");
  });
});

describe("memory lines in the prompt", () => {
  const a = entry("a", "x".repeat(4 * PROMPT_BYTES_PER_TOKEN - 5)); // "- a: " + content = 4 tokens exactly
  const b = entry("b", "y".repeat(2 * PROMPT_BYTES_PER_TOKEN - 5)); // 2 tokens exactly

  test("memories that fill the token budget exactly all go in; one token less leaves the last out", () => {
    expect(estimateTokens(`- a: ${a.content}`)).toBe(4);
    expect(estimateTokens(`- b: ${b.content}`)).toBe(2);
    expect(memoryLines([a, b], 6)).toHaveLength(2);
    expect(memoryLines([a, b], 5).map((line) => line.slice(0, 4))).toEqual(["- a:"]);
  });

  test("one that does not fit is skipped and a smaller one after it still goes in; private ones never", () => {
    expect(memoryLines([a, b], 3).map((line) => line.slice(0, 4))).toEqual(["- b:"]);
    expect(memoryLines([entry("p", "secret", { private: true }), b], 100).map((line) => line.slice(0, 4))).toEqual([
      "- b:",
    ]);
  });

  test("multi-byte text counts by its UTF-8 bytes", () => {
    expect(estimateTokens("日本語")).toBe(Math.ceil(9 / PROMPT_BYTES_PER_TOKEN));
  });
});

describe("memory.recall_max_tokens", () => {
  test("defaults to 600 and accepts 1..32000", () => {
    expect(ConfigSchema.parse({}).memory.recall_max_tokens).toBe(600);
    for (const ok of [1, 32_000]) expect(ConfigSchema.safeParse({ memory: { recall_max_tokens: ok } }).success).toBe(true);
    for (const bad of [0, 32_001]) expect(ConfigSchema.safeParse({ memory: { recall_max_tokens: bad } }).success).toBe(false);
  });
});

describe("deleting a session", () => {
  test("waits for the session's running turn, then erases everything it stored", async () => {
    const slow = startFakeOpenAI({ latencyMs: 100 });
    const dir = mkdtempSync(join(tmpdir(), "prx-delete-"));
    dirs.push(dir);
    const config = ConfigSchema.parse({
      default_provider: "fake",
      default_model: "fake-model",
      providers: { fake: { base_url: slow.url } },
      reliability: { retries: 0 },
    });
    const h = await openAgentHost({ workspace: dir, config });
    try {
      const turn = h.runTurn({ sessionId: "busy", channel: "test", text: "hello" });
      const deleted = await h.deleteSession("busy");
      expect((await turn).text).toBe("echo: hello");
      expect(deleted).toEqual({ session_id: "busy", messages: 2, media: 0, memories: 0 });
      expect(h.sessions.get("busy")).toBeNull();
    } finally {
      await h.close();
      await slow.stop();
    }
  });
});
