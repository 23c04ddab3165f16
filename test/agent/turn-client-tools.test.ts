/**
 * What a turn stores when it cannot start, and the turn's side of client tools: a call to one ends the turn, a
 * follow-up continues from the client's history without a new user message. A fake OpenAI server on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import type { Envelopes, MiddlewareRunner, Stage } from "../../src/contracts/envelopes.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import type { ToolSpec } from "../../src/providers/types.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";

let fake: FakeServer;
const dirs: string[] = [];
beforeAll(() => void (fake = startFakeOpenAI()));
afterAll(async () => {
  await fake.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function host(middleware?: MiddlewareRunner): Promise<AgentHost> {
  const dir = mkdtempSync(join(tmpdir(), "prx-turn-client-"));
  dirs.push(dir);
  const config = ConfigSchema.parse({
    default_provider: "fake",
    default_model: "fake-model",
    // tools called here run without asking for approval
    autonomy: { level: "full" },
    providers: { fake: { base_url: fake.url } },
    reliability: { retries: 0 },
    model_routes: [{ hint: "fast", provider: "fake", model: "fake-fast" }],
  });
  return openAgentHost({ workspace: dir, config, extend: async () => ({ middleware }) });
}

const weather: ToolSpec = { name: "get_weather", description: "weather", parameters: { type: "object" } };

describe("a turn that cannot start stores nothing", () => {
  test("an unknown provider, an unknown model hint or a bad session id leave no session behind", async () => {
    const h = await host();
    try {
      await expect(h.runTurn({ sessionId: "p1", text: "hi", channel: "chat", provider: "nope" })).rejects.toMatchObject({
        code: "PROVIDER_UNKNOWN",
      });
      await expect(h.runTurn({ sessionId: "p2", text: "hi", channel: "chat", model: "hint:nope" })).rejects.toMatchObject({
        code: "USAGE",
      });
      await expect(h.runTurn({ sessionId: "bad id!", text: "hi", channel: "chat" })).rejects.toMatchObject({
        code: "BAD_REQUEST",
      });
      expect(h.sessions.list()).toEqual([]);
      // A turn that reached the provider keeps what was said, as before.
      fake.enqueue({ type: "error", status: 500 });
      await expect(h.runTurn({ sessionId: "p3", text: "hi", channel: "chat" })).rejects.toMatchObject({ code: "PROVIDER_HTTP" });
      expect((await h.sessions.list()).map((s) => [s.id, s.messageCount])).toEqual([["p3", 1]]);
    } finally {
      await h.close();
    }
  });
});

describe("client tools in the turn", () => {
  test("a call to a client tool ends the turn and comes back as clientToolCalls", async () => {
    const h = await host();
    try {
      const result = await h.runTurn({
        sessionId: "c1",
        text: 'use tool get_weather {"city":"Rome"}',
        channel: "openai",
        historyOverride: [],
        clientTools: [weather],
      });
      expect(result.clientToolCalls).toEqual([{ id: expect.any(String), name: "get_weather", arguments: '{"city":"Rome"}' }]);
      expect(result.toolCalls).toEqual([]);
      expect(result.iterations).toBe(1);
    } finally {
      await h.close();
    }
  });

  test("a follow-up continues from the history: no new user message, no inbound middleware", async () => {
    const seen: Stage[] = [];
    const middleware: MiddlewareRunner = {
      run: async <S extends Stage>(stage: S, envelope: Envelopes[S]) => {
        seen.push(stage);
        return envelope;
      },
    };
    const h = await host(middleware);
    try {
      const call = { id: "call_1", name: "get_weather", arguments: "{}" };
      const result = await h.runTurn({
        sessionId: "c2",
        text: "",
        channel: "openai",
        historyOverride: [
          { role: "user", content: "weather?" },
          { role: "assistant", content: "", tool_calls: [call] },
          { role: "tool", content: "sunny", tool_call_id: "call_1" },
        ],
        continueFromHistory: true,
        clientTools: [weather],
      });
      expect(result.text).toBe("tool said: sunny");
      expect(result.clientToolCalls).toBeUndefined();
      expect(seen).toEqual(["llm_request", "llm_response", "outbound"]);
      const sent = fake.chatRequests().at(-1)!.body.messages as Array<{ role: string }>;
      expect(sent.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    } finally {
      await h.close();
    }
  });

  test("client tools and follow-ups need the client's own history", async () => {
    const h = await host();
    try {
      await expect(h.runTurn({ sessionId: "c3", text: "x", channel: "chat", clientTools: [weather] })).rejects.toMatchObject({
        code: "USAGE",
      });
      expect(h.sessions.list()).toEqual([]);
    } finally {
      await h.close();
    }
  });
});
