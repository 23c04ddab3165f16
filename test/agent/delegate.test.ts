/**
 * delegate through a real agent host and a fake OpenAI server on 127.0.0.1 ("use tool <name> <json>" makes the model
 * call a tool): the helper runs in a child session linked to its parent, with its own system prompt, only the tools
 * it was given and its budget; nesting stops at [tools.delegate] max_depth (at the limit passes, one past fails).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import type { TurnResult } from "../../src/agent/types.ts";
import type { ToolResult } from "../../src/tools/types.ts";
import { DelegateArgs } from "../../src/tools/builtins/agent-tools-schemas.ts";
import { NOT_OWNER_REFUSAL } from "../../src/tools/builtins/sessions.ts";
import {
  DELEGATE_MAX_ITERATIONS,
  DELEGATE_MAX_SYSTEM_PROMPT_CHARS,
  DELEGATE_MAX_TASK_CHARS,
  DELEGATE_MAX_TIMEOUT_S,
  DELEGATE_MAX_TOKENS,
  DELEGATE_MAX_TOOLS,
} from "../../src/tools/index.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";

let fake: FakeServer;
const dirs: string[] = [];
const hosts: AgentHost[] = [];
beforeAll(() => void (fake = startFakeOpenAI()));
afterAll(async () => {
  for (const host of hosts) await host.close();
  await fake.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function host(extra = ""): Promise<AgentHost> {
  const dir = mkdtempSync(join(tmpdir(), "prx-agent-tools-delegate-"));
  dirs.push(dir);
  writeFileSync(
    join(dir, "config.toml"),
    `default_provider = "fake"\ndefault_model = "fake-model"\nautonomy = { level = "full" }\n[providers.fake]\nbase_url = "${fake.url}"\n` +
      `[reliability]\nretries = 0\n[memory]\nauto_recall = false\n${extra}\n`,
  );
  const opened = await openAgentHost({ workspace: dir, env: {} });
  hosts.push(opened);
  return opened;
}

type Body = { messages: Array<{ role: string; content: string }>; tools?: Array<{ function: { name: string } }> };
const bodies = () => fake.chatRequests().map((r) => r.body as Body);
/** What the delegate call answered the parent's model. */
function delegateAnswer(result: TurnResult): ToolResult {
  return result.toolCalls.find((t) => t.call.name === "delegate")!.result;
}

describe("delegate", () => {
  test("the helper answers in a child session linked to the parent, with its own system prompt and tools", async () => {
    const h = await host();
    fake.reset();
    const args = { task: "say hello", system_prompt: "You are a terse helper.", tools: ["memory_recall"] };
    const result = await h.runTurn({ sessionId: "parent-1", channel: "test", text: `use tool delegate ${JSON.stringify(args)}` });
    const answer = delegateAnswer(result);
    expect(answer.success).toBe(true);
    const parsed = JSON.parse(answer.output);
    expect(parsed.answer).toBe("echo: say hello");
    expect(parsed.session_id).toMatch(/^delegate_[0-9a-f]{20}$/);
    expect(result.text).toBe(`tool said: ${answer.output}`);
    // the helper's call: its system prompt, the task alone, only the tools it was given
    const helperCall = bodies().find((b) => b.messages.at(-1)?.content === "say hello")!;
    expect(helperCall.messages[0]).toEqual({ role: "system", content: expect.stringContaining("You are a terse helper.") });
    expect(helperCall.messages.filter((m) => m.role === "user").length).toBe(1);
    expect((helperCall.tools ?? []).map((t) => t.function.name)).toEqual(["memory_recall"]);
    // kept: the child session with the helper's messages, linked to its parent
    const child = await h.sessions.messages(parsed.session_id);
    expect(child.map((m) => [m.role, m.content])).toEqual([["user", "say hello"], ["assistant", "echo: say hello"]]);
    expect(await h.storage.sessionLinks.parentOf(parsed.session_id)).toMatchObject({ parentId: "parent-1", depth: 1 });
    expect((await h.storage.sessionLinks.children("parent-1", 10)).map((l) => l.childId)).toEqual([parsed.session_id]);
    // erasing the helper's session erases its link too
    await h.deleteSession(parsed.session_id);
    expect(await h.storage.sessionLinks.children("parent-1", 10)).toEqual([]);
  });

  test("a tool the parent does not have is refused naming the ones it could give", async () => {
    const h = await host();
    const result = await h.runTurn({ sessionId: "parent-2", channel: "test", text: 'use tool delegate {"task":"x","tools":["shell"]}' });
    const answer = delegateAnswer(result);
    expect(answer.success).toBe(false);
    expect(answer.error).toContain("tools the helper cannot have: shell");
    expect(await h.storage.sessionLinks.children("parent-2", 10)).toEqual([]);
  });

  test("max_depth 2: a helper's helper runs (level 2), its own delegate call is refused (level 3)", async () => {
    const h = await host();
    const level3 = { task: "level three" };
    const level2 = { task: `use tool delegate ${JSON.stringify(level3)}` };
    const result = await h.runTurn({ sessionId: "parent-3", channel: "test", text: `use tool delegate ${JSON.stringify({ task: `use tool delegate ${JSON.stringify(level2)}` })}` });
    expect(delegateAnswer(result).success).toBe(true);
    const child = (await h.storage.sessionLinks.children("parent-3", 10))[0]!;
    const grandchild = (await h.storage.sessionLinks.children(child.childId, 10))[0]!;
    expect(grandchild.depth).toBe(2);
    expect(await h.storage.sessionLinks.children(grandchild.childId, 10)).toEqual([]);
    const deepest = await h.sessions.messages(grandchild.childId);
    const refusal = deepest.find((m) => m.role === "tool")!;
    expect(refusal.content).toContain("delegate is limited to 2 nested levels ([tools.delegate] max_depth)");
  });

  test("a helper of a sender who is not the owner is not the owner either: it cannot read sessions", async () => {
    const h = await host();
    const args = { task: "use tool sessions_list {}", tools: ["sessions_list"] };
    const result = await h.runTurn({
      sessionId: "parent-7",
      channel: "test",
      text: `use tool delegate ${JSON.stringify(args)}`,
      fromOwner: () => false,
    });
    expect(JSON.parse(delegateAnswer(result).output).answer).toBe(`tool said: error: ${NOT_OWNER_REFUSAL}`);
  });

  test("max_depth 0 turns delegate off: not offered", async () => {
    const h = await host("[tools.delegate]\nmax_depth = 0");
    expect(h.tools.names()).not.toContain("delegate");
  });

  test("max_tokens: a helper whose calls used up its tokens stops after its tool round", async () => {
    const h = await host();
    const args = { task: 'use tool memory_recall {"query":"x"}', max_tokens: 1 };
    const result = await h.runTurn({ sessionId: "parent-4", channel: "test", text: `use tool delegate ${JSON.stringify(args)}` });
    const parsed = JSON.parse(delegateAnswer(result).output);
    expect(parsed.answer).toBe("(stopped: the token budget of 1 was spent after 1 model calls)");
    expect(parsed.iterations).toBe(1);
  });

  test("max_iterations: a helper at its limit is offered no more tools", async () => {
    const h = await host();
    fake.reset();
    const args = { task: 'use tool memory_recall {"query":"x"}', max_iterations: 1 };
    const result = await h.runTurn({ sessionId: "parent-5", channel: "test", text: `use tool delegate ${JSON.stringify(args)}` });
    expect(JSON.parse(delegateAnswer(result).output).iterations).toBe(2);
    const helperCalls = bodies().filter((b) => b.messages.some((m) => m.content === args.task));
    expect(helperCalls.map((b) => (b.tools ?? []).length > 0)).toEqual([true, false]);
  });
});

describe("delegate time budget", () => {
  test("a helper whose model does not answer within timeout_s ends; the parent is told and its session stays", async () => {
    const h = await host();
    fake.reset();
    // the parent's call asks for the helper; the helper's own call hangs
    fake.script((request) => ((request.body as Body).messages.at(-1)?.content === "never answered" ? { type: "hang" } : undefined));
    try {
      const result = await h.runTurn({ sessionId: "parent-6", channel: "test", text: 'use tool delegate {"task":"never answered","timeout_s":1}' });
      const answer = delegateAnswer(result);
      expect(answer.success).toBe(false);
      expect(answer.error).toMatch(/^the helper ran out of time \(1 s\); session delegate_[0-9a-f]{20} keeps what it did$/);
      const child = (await h.storage.sessionLinks.children("parent-6", 10))[0]!;
      expect((await h.sessions.messages(child.childId)).map((m) => m.content)).toEqual(["never answered"]);
    } finally {
      fake.script(undefined);
    }
  });
});

describe("delegate arguments: each bound at the limit passes, one past fails", () => {
  const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
    ["task", { task: "t".repeat(DELEGATE_MAX_TASK_CHARS) }, { task: "t".repeat(DELEGATE_MAX_TASK_CHARS + 1) }],
    [
      "system_prompt",
      { task: "t", system_prompt: "s".repeat(DELEGATE_MAX_SYSTEM_PROMPT_CHARS) },
      { task: "t", system_prompt: "s".repeat(DELEGATE_MAX_SYSTEM_PROMPT_CHARS + 1) },
    ],
    ["tools", { task: "t", tools: Array(DELEGATE_MAX_TOOLS).fill("x") }, { task: "t", tools: Array(DELEGATE_MAX_TOOLS + 1).fill("x") }],
    ["max_iterations", { task: "t", max_iterations: DELEGATE_MAX_ITERATIONS }, { task: "t", max_iterations: DELEGATE_MAX_ITERATIONS + 1 }],
    ["max_tokens", { task: "t", max_tokens: DELEGATE_MAX_TOKENS }, { task: "t", max_tokens: DELEGATE_MAX_TOKENS + 1 }],
    ["timeout_s", { task: "t", timeout_s: DELEGATE_MAX_TIMEOUT_S }, { task: "t", timeout_s: DELEGATE_MAX_TIMEOUT_S + 1 }],
  ];
  for (const [name, atLimit, past] of cases) {
    test(name, () => {
      expect(DelegateArgs.safeParse(atLimit).success).toBe(true);
      const parsed = DelegateArgs.safeParse(past);
      expect(parsed.success).toBe(false);
      expect(parsed.error!.issues[0]!.path).toEqual([name]);
    });
  }
});
