import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { SUMMARY_INSTRUCTIONS } from "../../src/agent/compaction.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import type { EventPublisher } from "../../src/core/events.ts";
import { startFakeOpenAI, type FakeServer, type FakeStep, type RecordedRequest } from "../fakes/openai-server.ts";

let fake: FakeServer;
const dirs: string[] = [];

beforeAll(() => {
  fake = startFakeOpenAI();
});
afterAll(() => {
  fake.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

type Body = { messages: Array<{ role: string; content: string | null }>; tools?: Array<{ function: { name: string } }> };
const isSummary = (r: RecordedRequest) => (r.body as Body).messages[0]?.content === SUMMARY_INSTRUCTIONS;

async function host(compaction: Record<string, unknown> = {}, events?: EventPublisher): Promise<AgentHost> {
  const dir = mkdtempSync(join(tmpdir(), "prx-compaction-"));
  dirs.push(dir);
  const config = ConfigSchema.parse({
    default_provider: "fake",
    default_model: "small",
    providers: { fake: { base_url: fake.url, model_info: { small: { context_window: 2048, max_output_tokens: 256 } } } },
    reliability: { retries: 0 },
    memory: { auto_recall: false },
    tools: { disabled: ["memory_recall", "memory_forget", "file_read", "file_write", "http_request", "shell", "sessions_list", "sessions_history", "delegate", "cron"] },
    compaction,
  });
  return openAgentHost({ workspace: dir, config, extend: async () => ({ events }) });
}

/** Turns of about 130 estimated tokens each (user and reply). */
async function fill(h: AgentHost, session: string, turns: number): Promise<void> {
  for (let i = 0; i < turns; i++) await h.runTurn({ sessionId: session, text: `turn ${i} ${"lorem ".repeat(40)}`, channel: "test" });
}

describe("compaction in a turn", () => {
  test("a turn past compact_at summarises the older history first; usage counts the summary's call", async () => {
    fake.reset();
    fake.script((r) => (isSummary(r) ? { type: "text", text: "SUMMARY-OK" } : undefined));
    const h = await host();
    await fill(h, "c1", 14);
    const summarised = fake.chatRequests().filter(isSummary);
    expect(summarised.length).toBeGreaterThanOrEqual(1);
    const summary = (await h.sessions.summary("c1"))!;
    expect(summary.content).toBe("SUMMARY-OK");
    expect(summary.model).toBe("small");
    const turns = fake.chatRequests().filter((r) => !isSummary(r));
    const after = turns.at(-1)!.body as Body;
    expect(after.messages[0]!.content).toContain("SUMMARY-OK");
    expect((await h.sessions.allMessages("c1")).length).toBe(28);
    await h.close();
  });

  test("a failing summariser leaves the session as it was; the turn goes on with the oldest messages left out", async () => {
    fake.reset();
    const topics: string[] = [];
    const h = await host({}, { publish: (topic, payload) => void topics.push(`${topic} ${JSON.stringify(payload)}`) });
    fake.script((r): FakeStep | undefined => (isSummary(r) ? { type: "error", status: 500 } : undefined));
    await fill(h, "c2", 20);
    expect(await h.sessions.summary("c2")).toBeNull();
    expect(fake.chatRequests().filter(isSummary).length).toBeGreaterThan(0);
    expect(topics.some((t) => t.includes("prx.lifecycle.error") && t.includes('"stage":"compaction"'))).toBe(true);
    const last = fake.chatRequests().at(-1)!.body as Body;
    expect(last.messages.at(-1)!.content).toStartWith("turn 19 ");
    // the oldest turns were left out of the prompt, not out of the session
    expect(last.messages.some((m) => (m.content ?? "").startsWith("turn 0 "))).toBe(false);
    expect((await h.sessions.allMessages("c2")).length).toBe(40);
    await h.close();
  });

  test("the provider's reported prompt tokens of the previous call correct the estimate of the next prompt", async () => {
    fake.reset();
    const h = await host({ enabled: false });
    await fill(h, "c6", 6);
    const whole = fake.chatRequests().at(-1)!.body as Body;
    expect(whole.messages.some((m) => (m.content ?? "").startsWith("turn 0 "))).toBe(true);
    // the provider says the prompt was far larger than estimated: the next prompt is fitted with the learned ratio
    const completion = {
      id: "chatcmpl-ratio",
      object: "chat.completion",
      created: 0,
      model: "small",
      choices: [{ index: 0, message: { role: "assistant", content: "counted", refusal: null }, logprobs: null, finish_reason: "stop" }],
      usage: { prompt_tokens: 1_000_000, completion_tokens: 1, total_tokens: 1_000_001 },
    };
    fake.enqueue({ type: "raw", body: JSON.stringify(completion), headers: { "content-type": "application/json" } });
    await h.runTurn({ sessionId: "c6", text: "count this one", channel: "test" });
    const counted = fake.chatRequests().at(-1)!.body as Body;
    expect(counted.messages.some((m) => (m.content ?? "").startsWith("turn 0 "))).toBe(true);
    await h.runTurn({ sessionId: "c6", text: "and now?", channel: "test" });
    const corrected = fake.chatRequests().at(-1)!.body as Body;
    expect(corrected.messages.some((m) => (m.content ?? "").startsWith("turn 0 "))).toBe(false);
    expect(corrected.messages.length).toBeLessThan(counted.messages.length);
    expect(corrected.messages.at(-1)!.content).toBe("and now?");
    await h.close();
  });

  test("compaction off: no summary, the prompt is still fitted", async () => {
    fake.reset();
    const h = await host({ enabled: false });
    await fill(h, "c3", 20);
    expect(fake.chatRequests().filter(isSummary).length).toBe(0);
    const last = fake.chatRequests().at(-1)!.body as Body;
    expect(last.messages.some((m) => (m.content ?? "").startsWith("turn 0 "))).toBe(false);
    await h.close();
  });

  test("memory_flush: one extra call offered only memory_store, its facts kept, before the summary", async () => {
    fake.reset();
    const h = await host({ memory_flush: true });
    fake.script((r): FakeStep | undefined => {
      const body = r.body as Body;
      if (isSummary(r)) return { type: "text", text: "SUMMARY" };
      if (body.tools?.length === 1 && body.tools[0]!.function.name === "memory_store" && body.messages[0]!.content!.includes("about to be summarised")) {
        return { type: "tool_calls", calls: [{ name: "memory_store", arguments: { key: "flushed", content: "a durable fact" } }] };
      }
      return undefined;
    });
    await fill(h, "c4", 14);
    expect((await h.memory.get("flushed"))?.content).toBe("a durable fact");
    expect(await h.sessions.summary("c4")).not.toBeNull();
    await h.close();
  });

  test("compactSession by hand folds every message; a session that does not exist is SESSION_NOT_FOUND", async () => {
    fake.reset();
    fake.script((r) => (isSummary(r) ? { type: "text", text: "HAND" } : undefined));
    const h = await host();
    await fill(h, "c5", 2);
    const done = await h.compactSession("c5");
    expect(done).toMatchObject({ session_id: "c5", compacted: true, folded: 4, summary: { fromSeq: 1, throughSeq: 4, content: "HAND" } });
    expect((await h.compactSession("c5")).compacted).toBe(false);
    await h.runTurn({ sessionId: "c5", text: "next", channel: "test" });
    const last = fake.chatRequests().at(-1)!.body as Body;
    expect(last.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(last.messages[0]!.content).toContain("HAND");
    await expect(h.compactSession("nope")).rejects.toMatchObject({ code: "SESSION_NOT_FOUND" });
    await h.close();
  });
});
