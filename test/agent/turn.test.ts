import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import type { Envelopes, MiddlewareRunner, Stage } from "../../src/contracts/envelopes.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import type { EventPublisher } from "../../src/core/events.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";

let fake: FakeServer;
const dirs: string[] = [];

beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(() => {
  fake.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function recorder(): EventPublisher & { topics: string[] } {
  const topics: string[] = [];
  return { topics, publish: (topic) => void topics.push(topic) };
}

async function host(options: { maxIterations?: number; middleware?: MiddlewareRunner; events?: EventPublisher } = {}): Promise<AgentHost> {
  const dir = mkdtempSync(join(tmpdir(), "prx-turn-"));
  dirs.push(dir);
  const config = ConfigSchema.parse({
    default_provider: "fake",
    default_model: "fake-model",
    // tools called here run without asking for approval
    autonomy: { level: "full" },
    providers: { fake: { base_url: fake.url } },
    reliability: { retries: 0 },
    agent: { max_tool_iterations: options.maxIterations ?? 10 },
  });
  return openAgentHost({
    workspace: dir,
    config,
    extend: async () => ({ middleware: options.middleware, events: options.events }),
  });
}

describe("agent turn loop", () => {
  test("plain turn persists user and assistant messages and streams deltas", async () => {
    const h = await host();
    let streamed = "";
    const result = await h.runTurn({ sessionId: "s1", text: "hi there", channel: "test", observer: { onDelta: (t) => (streamed += t) } });
    expect(result.text).toBe("echo: hi there");
    expect(streamed).toBe("echo: hi there");
    expect((await h.sessions.messages("s1")).map((m) => [m.role, m.content])).toEqual([
      ["user", "hi there"],
      ["assistant", "echo: hi there"],
    ]);
    await h.close();
  });

  test("tool calls run, results go back to the model, lifecycle events in order", async () => {
    const events = recorder();
    const h = await host({ events });
    const result = await h.runTurn({
      sessionId: "s2",
      text: 'use tool memory_store {"key":"k1","content":"the sky is green"}',
      channel: "test",
    });
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]!.result.success).toBe(true);
    expect(result.text).toStartWith("tool said:");
    expect((await h.memory.get("k1"))?.content).toBe("the sky is green");
    expect(events.topics).toEqual([
      "prx.lifecycle.agent_start",
      "prx.lifecycle.llm_request",
      "prx.lifecycle.llm_response",
      "prx.lifecycle.tool_call_start",
      "prx.lifecycle.tool_call",
      "prx.lifecycle.llm_request",
      "prx.lifecycle.llm_response",
      "prx.lifecycle.turn_complete",
      "prx.lifecycle.agent_stop",
    ]);
    const roles = (await h.sessions.history("s2", 50)).map((m) => m.role);
    expect(roles).toEqual(["user", "assistant", "tool", "assistant"]);
    await h.close();
  });

  test("invalid tool JSON becomes an error tool result, the turn goes on", async () => {
    const h = await host();
    fake.enqueue({ type: "tool_calls", calls: [{ name: "memory_store", arguments: "{not json" }] });
    const result = await h.runTurn({ sessionId: "s3", text: "go", channel: "test" });
    expect(result.toolCalls[0]!.result.success).toBe(false);
    expect(result.toolCalls[0]!.result.error).toMatch(/JSON/i);
    expect(result.text).toContain("tool said: error:");
    await h.close();
  });

  test("max_tool_iterations caps the loop", async () => {
    const h = await host({ maxIterations: 2 });
    fake.script((req) => (req.body?.tools?.length ? { type: "tool_calls", calls: [{ name: "memory_recall", arguments: { query: "x" } }] } : { type: "text", text: "gave up" }));
    try {
      const result = await h.runTurn({ sessionId: "s4", text: "loop", channel: "test" });
      expect(result.toolCalls).toHaveLength(2);
      expect(result.iterations).toBe(3);
      expect(result.text).toBe("gave up");
    } finally {
      fake.script(undefined);
    }
    await h.close();
  });

  test("provider failure keeps the session history intact", async () => {
    const h = await host();
    await h.runTurn({ sessionId: "s5", text: "first", channel: "test" });
    fake.enqueue({ type: "error", status: 400, message: "bad request from fake" });
    await expect(h.runTurn({ sessionId: "s5", text: "second", channel: "test" })).rejects.toThrow(/400/);
    expect((await h.sessions.messages("s5")).map((m) => m.content)).toEqual(["first", "echo: first", "second"]);
    const third = await h.runTurn({ sessionId: "s5", text: "third", channel: "test" });
    expect(third.text).toBe("echo: third");
    await h.close();
  });

  test("abort cancels the provider request", async () => {
    const h = await host();
    fake.enqueue({ type: "hang" });
    const controller = new AbortController();
    const turn = h.runTurn({ sessionId: "s6", text: "wait", channel: "test", signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(turn).rejects.toMatchObject({ code: "ABORTED" });
    await h.close();
  });

  test("middleware stages transform the turn and buffered output is delivered once", async () => {
    const seen: Stage[] = [];
    const middleware: MiddlewareRunner = {
      active: () => true,
      async run<S extends Stage>(stage: S, envelope: Envelopes[S]): Promise<Envelopes[S]> {
        seen.push(stage);
        if (stage === "inbound") return { ...(envelope as Envelopes["inbound"]), text: "rewritten" } as Envelopes[S];
        if (stage === "outbound") {
          const e = envelope as Envelopes["outbound"];
          return { ...e, text: e.text.toUpperCase() } as Envelopes[S];
        }
        return envelope;
      },
    };
    const h = await host({ middleware });
    const deltas: string[] = [];
    const result = await h.runTurn({ sessionId: "s7", text: "original", channel: "test", observer: { onDelta: (t) => deltas.push(t) } });
    expect(seen).toEqual(["inbound", "llm_request", "llm_response", "outbound"]);
    expect(fake.chatRequests().at(-1)?.body.messages.at(-1).content).toBe("rewritten");
    expect(result.text).toBe("ECHO: REWRITTEN");
    expect(deltas).toEqual(["ECHO: REWRITTEN"]);
    await h.close();
  });

  test("historyOverride runs statelessly", async () => {
    const h = await host();
    const result = await h.runTurn({
      sessionId: "openai",
      text: "stateless",
      channel: "openai",
      historyOverride: [{ role: "user", content: "earlier" }, { role: "assistant", content: "ok" }],
    });
    expect(result.text).toBe("echo: stateless");
    expect(h.sessions.get("openai")).toBeNull();
    await h.close();
  });
});
