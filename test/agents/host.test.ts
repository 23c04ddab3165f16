/**
 * Several agents in one host: each turn runs with its agent's prompt, model, tools and memory; sessions, usage and the
 * audit log carry the agent's id; an agent with its own memory keeps it from every other agent.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";

let fake: FakeServer;
let host: AgentHost;
let dir: string;

beforeAll(async () => {
  fake = startFakeOpenAI();
  dir = mkdtempSync(join(tmpdir(), "prx-agents-host-"));
  const config = ConfigSchema.parse({
    default_provider: "fake",
    default_model: "model-main",
    providers: { fake: { base_url: fake.url, models: ["model-main", "model-work", "model-home"] } },
    reliability: { retries: 0 },
    agent: { system_prompt: "You are main." },
    agents: {
      work: { system_prompt: "You are the work agent.", default_model: "model-work", memory_scope: "own", tools: { deny: ["file_*"] } },
      home: { system_prompt: "You are the home agent.", default_model: "model-home" },
    },
  });
  host = await openAgentHost({ workspace: dir, config });
});
afterAll(async () => {
  await host.close();
  await fake.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Sent {
  model: string;
  messages: Array<{ role: string; content: string }>;
  tools?: Array<{ function: { name: string } }>;
}

function lastRequest(): Sent {
  return fake.chatRequests().at(-1)!.body as Sent;
}

function systemOf(body: Sent): string {
  return body.messages.find((m) => m.role === "system")!.content;
}

test("each agent answers with its own system prompt and model; main is [agent]", async () => {
  await host.runTurn({ sessionId: "w1", channel: "test", text: "hello", agent: "work" });
  expect(lastRequest().model).toBe("model-work");
  expect(systemOf(lastRequest())).toStartWith("You are the work agent.");
  await host.runTurn({ sessionId: "h1", channel: "test", text: "hello", agent: "home" });
  expect(lastRequest().model).toBe("model-home");
  expect(systemOf(lastRequest())).toStartWith("You are the home agent.");
  const result = await host.runTurn({ sessionId: "m1", channel: "test", text: "hello" });
  expect(result.model).toBe("model-main");
  expect(systemOf(lastRequest())).toStartWith("You are main.");
  // model = "agent:<id>" names the agent too
  await host.runTurn({ sessionId: "w2", channel: "test", text: "hi", model: "agent:work" });
  expect(lastRequest().model).toBe("model-work");
  expect(host.resolveModelChoice({ model: "agent:home" })).toEqual({ provider: "fake", model: "model-home" });
});

test("an unknown agent is refused before anything is stored", async () => {
  await expect(host.runTurn({ sessionId: "x1", channel: "test", text: "hello", agent: "ghost" })).rejects.toMatchObject({ code: "AGENT_NOT_FOUND" });
  expect(await host.sessions.get("x1")).toBeNull();
});

test("a session is one agent's conversation: another agent's turn on it is a CONFLICT that stores nothing", async () => {
  const before = (await host.sessions.messages("w1")).length;
  await expect(host.runTurn({ sessionId: "w1", channel: "test", text: "let me read this" })).rejects.toMatchObject({ code: "CONFLICT" });
  await expect(host.runTurn({ sessionId: "w1", channel: "test", text: "me too", agent: "home" })).rejects.toMatchObject({ code: "CONFLICT" });
  expect((await host.sessions.messages("w1")).length).toBe(before);
  await host.runTurn({ sessionId: "w1", channel: "test", text: "still work", model: "agent:work" });
  expect((await host.sessions.messages("w1")).length).toBe(before + 2);
});

test("sessions carry their agent and list by it", async () => {
  expect((await host.sessions.get("w1"))!.agent).toBe("work");
  expect((await host.sessions.get("m1"))!.agent).toBe("main");
  const work = (await host.sessions.list(50, "work")).map((s) => s.id).sort();
  expect(work).toEqual(["w1", "w2"]);
  expect((await host.sessions.list(50, "home")).map((s) => s.id)).toEqual(["h1"]);
});

test("usage is kept per agent", async () => {
  const rows = await host.usage.totals("agent", "2000-01-01");
  const keys = rows.map((row) => row.key).sort();
  expect(keys).toEqual(["home", "main", "work"]);
  expect(rows.find((row) => row.key === "work")!.calls).toBe(3);
});

test("an agent is not offered the tools it is denied, and a call to one is refused and audited under its id", async () => {
  await host.runTurn({ sessionId: "w3", channel: "test", text: "hi", agent: "work" });
  const offered = (lastRequest().tools ?? []).map((t) => t.function.name);
  expect(offered).toContain("memory_store");
  expect(offered.some((name) => name.startsWith("file_"))).toBe(false);
  await host.runTurn({ sessionId: "m2", channel: "test", text: "hi" });
  expect((lastRequest().tools ?? []).map((t) => t.function.name)).toContain("file_read");
  fake.enqueue({ type: "tool_calls", calls: [{ name: "file_read", arguments: '{"path":"config.toml"}' }] });
  const result = await host.runTurn({ sessionId: "w3", channel: "test", text: "read it", agent: "work" });
  expect(result.toolCalls[0]!.result.success).toBe(false);
  const audit = await host.storage.audit.list({ limit: 10 });
  const entry = audit.find((e) => e.session_id === "w3" && e.tool === "file_read")!;
  expect(entry.agent).toBe("work");
  expect(entry.outcome).toBe("error");
});

test("a memory the work agent keeps (scope own) never reaches another agent's prompt or tools; work recalls it", async () => {
  const store = 'use tool memory_store {"key":"deadline","content":"the quarterly report deadline is friday"}';
  const stored = await host.runTurn({ sessionId: "w4", channel: "test", text: store, agent: "work" });
  expect(stored.toolCalls[0]!.result.success).toBe(true);
  // the entry carries the agent's id
  const entry = await host.memory.get("@work/deadline");
  expect(entry?.content).toBe("the quarterly report deadline is friday");

  const question = "when is the quarterly report deadline?";
  await host.runTurn({ sessionId: "h2", channel: "test", text: question, agent: "home" });
  expect(systemOf(lastRequest())).not.toContain("friday");
  await host.runTurn({ sessionId: "m3", channel: "test", text: question });
  expect(systemOf(lastRequest())).not.toContain("friday");
  // nor through the memory tools of another agent
  const recall = await host.runTurn({ sessionId: "h3", channel: "test", text: 'use tool memory_recall {"query":"quarterly report deadline"}', agent: "home" });
  expect(recall.toolCalls[0]!.result.output).toBe("no memories matched");
  const get = await host.runTurn({ sessionId: "h3", channel: "test", text: 'use tool memory_store {"key":"@work/deadline","content":"overwritten"}', agent: "home" });
  expect(get.toolCalls[0]!.result.success).toBe(false);
  expect((await host.memory.get("@work/deadline"))?.content).toBe("the quarterly report deadline is friday");

  // the work agent recalls its own memory, under the key it gave it
  await host.runTurn({ sessionId: "w5", channel: "test", text: question, agent: "work" });
  expect(systemOf(lastRequest())).toContain("- deadline: the quarterly report deadline is friday");
  const own = await host.runTurn({ sessionId: "w5", channel: "test", text: 'use tool memory_recall {"query":"quarterly report deadline"}', agent: "work" });
  expect(own.toolCalls[0]!.result.output).toContain("deadline [core");
});

test("shared memories reach shared agents, not an agent with its own memory", async () => {
  await host.memory.store("garden", "the tomatoes need water on sundays", "core");
  const question = "when do the tomatoes need water?";
  await host.runTurn({ sessionId: "h4", channel: "test", text: question, agent: "home" });
  expect(systemOf(lastRequest())).toContain("tomatoes need water");
  await host.runTurn({ sessionId: "w6", channel: "test", text: question, agent: "work" });
  expect(systemOf(lastRequest())).not.toContain("tomatoes");
});

test("plugins serve every agent: the memory they get is the shared one, without any agent's own entries", async () => {
  let pluginMemory: (() => import("../../src/memory/types.ts").MemoryBackend | null) | undefined;
  const config = ConfigSchema.parse({
    providers: {},
    agents: { work: { memory_scope: "own" } },
  });
  const other = await openAgentHost({
    workspace: dir,
    config,
    extend: async (base) => {
      pluginMemory = base.memory;
      return {};
    },
  });
  try {
    const seen = pluginMemory!()!;
    const found = await seen.recall("quarterly report deadline", 10, null, { includePrivate: true });
    expect(found.map((e) => e.key)).not.toContain("@work/deadline");
    expect(found.map((e) => e.content).join(" ")).not.toContain("friday");
    await expect(seen.get("@work/deadline")).rejects.toMatchObject({ code: "MEMORY" });
    expect((await seen.recall("tomatoes water", 10, null)).map((e) => e.key)).toEqual(["garden"]);
  } finally {
    await other.close();
  }
});

test("a session is compacted by hand as its agent: with the agent's model", async () => {
  const done = await host.compactSession("w1");
  expect(done.compacted).toBe(true);
  expect(lastRequest().model).toBe("model-work");
  await host.compactSession("m1");
  expect(lastRequest().model).toBe("model-main");
});
