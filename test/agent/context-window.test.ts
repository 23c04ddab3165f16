import { describe, expect, test } from "bun:test";
import { ConfigSchema } from "../../src/config/schema.ts";
import {
  ContextRatios,
  IMAGE_LOW_TOKENS,
  IMAGE_TILE_TOKENS,
  IMAGE_UNKNOWN_TOKENS,
  MESSAGE_OVERHEAD_TOKENS,
  RATIO_MAX,
  RATIO_MIN,
  RATIO_SESSIONS_MAX,
  cutToolResult,
  cutToolResults,
  fitPrompt,
  imageTokens,
  messageTokens,
  promptTokens,
  toolsTokens,
  windowBudget,
} from "../../src/agent/context-window.ts";
import { tailStart } from "../../src/agent/compaction.ts";
import type { ChatMessage } from "../../src/providers/types.ts";
import type { StoredMessage } from "../../src/storage/types.ts";

/** A message of exactly `tokens` estimated tokens (overhead included). */
const sized = (role: ChatMessage["role"], tokens: number, tag = "x"): ChatMessage => ({ role, content: tag.padEnd((tokens - MESSAGE_OVERHEAD_TOKENS) * 4, "."), ...(role === "tool" ? { tool_call_id: "c" } : {}) });

describe("estimates", () => {
  test("text is UTF-8 bytes / 4 plus the per-message overhead; multi-byte text counts its bytes", () => {
    expect(messageTokens({ role: "user", content: "" })).toBe(MESSAGE_OVERHEAD_TOKENS);
    expect(messageTokens({ role: "user", content: "abcd" })).toBe(MESSAGE_OVERHEAD_TOKENS + 1);
    expect(messageTokens({ role: "user", content: "abcde" })).toBe(MESSAGE_OVERHEAD_TOKENS + 2);
    expect(messageTokens({ role: "user", content: "日本" })).toBe(MESSAGE_OVERHEAD_TOKENS + 2); // 6 bytes
    const call: ChatMessage = { role: "assistant", content: "", tool_calls: [{ id: "1", name: "abcd", arguments: "{}" }] };
    expect(messageTokens(call)).toBe(MESSAGE_OVERHEAD_TOKENS + 1 + 1);
  });

  test("images by OpenAI's tile rule, low detail flat, unknown size at the most", () => {
    expect(imageTokens({ kind: "image" })).toBe(IMAGE_UNKNOWN_TOKENS);
    expect(imageTokens({ kind: "image", width: 4000, height: 3000, detail: "low" })).toBe(IMAGE_LOW_TOKENS);
    expect(imageTokens({ kind: "image", width: 512, height: 512 })).toBe(IMAGE_LOW_TOKENS + IMAGE_TILE_TOKENS);
    // 1024x1024 -> shortest side 768 -> 2x2 tiles
    expect(imageTokens({ kind: "image", width: 1024, height: 1024 })).toBe(IMAGE_LOW_TOKENS + 4 * IMAGE_TILE_TOKENS);
    // 2048x4096 -> 1024x2048 -> 768x1536 -> 2x3 tiles
    expect(imageTokens({ kind: "image", width: 2048, height: 4096 })).toBe(IMAGE_LOW_TOKENS + 6 * IMAGE_TILE_TOKENS);
    const withImage: ChatMessage = { role: "user", content: "", media: [{ kind: "image", width: 512, height: 512 }] };
    expect(messageTokens(withImage)).toBe(MESSAGE_OVERHEAD_TOKENS + IMAGE_LOW_TOKENS + IMAGE_TILE_TOKENS);
  });

  test("tool schemas count, and the same list is counted once", () => {
    const tools = [{ name: "abcd", description: "abcd", parameters: { type: "object" } }];
    expect(toolsTokens(tools)).toBe(MESSAGE_OVERHEAD_TOKENS + 1 + 1 + Math.ceil(JSON.stringify({ type: "object" }).length / 4));
    expect(toolsTokens(tools)).toBe(toolsTokens(tools));
    expect(toolsTokens([])).toBe(0);
    expect(promptTokens([{ role: "user", content: "abcd" }], tools)).toBe(MESSAGE_OVERHEAD_TOKENS + 1 + toolsTokens(tools));
  });

  test("the window budget: the reply's room from provider max_tokens, else the model's longest reply, at most a quarter", () => {
    const config = ConfigSchema.parse({
      providers: { p: { base_url: "http://127.0.0.1:1/v1", model_info: { m: { context_window: 10_000, max_output_tokens: 1_000 } } }, q: { base_url: "http://127.0.0.1:1/v1", max_tokens: 500, model_info: { m: { context_window: 10_000, max_output_tokens: 9_000 } } } },
      compaction: { compact_at: 0.8 },
    });
    expect(windowBudget(config, "p", "m")).toEqual({ window: 10_000, limit: 9_000, compactAt: 8_000 });
    expect(windowBudget(config, "q", "m")).toEqual({ window: 10_000, limit: 9_500, compactAt: 8_000 });
    const big = ConfigSchema.parse({ providers: { p: { base_url: "http://127.0.0.1:1/v1", model_info: { m: { context_window: 10_000, max_output_tokens: 9_000 } } } }, compaction: { compact_at: 0.95 } });
    // the room is capped at a quarter, and compaction never starts above the limit
    expect(windowBudget(big, "p", "m")).toEqual({ window: 10_000, limit: 7_500, compactAt: 7_500 });
  });
});

describe("fitting a prompt", () => {
  const prompt = [sized("system", 10), sized("user", 10), sized("assistant", 10), sized("user", 10), sized("assistant", 10), sized("user", 10)];

  test("at the limit it passes unchanged; one past, the oldest message goes", () => {
    expect(promptTokens(prompt)).toBe(60);
    const same = fitPrompt(prompt, 60);
    expect(same.messages).toBe(prompt);
    expect(same.tokens).toBe(60);
    const cut = fitPrompt(prompt, 59);
    expect(cut.messages).toEqual([prompt[0]!, ...prompt.slice(2)]);
    expect(cut.tokens).toBe(50);
  });

  test("tool schemas and the learned ratio count against the limit", () => {
    expect(fitPrompt(prompt, 70, 1, 10).messages).toBe(prompt);
    expect(fitPrompt(prompt, 69, 1, 10).messages.length).toBe(5);
    expect(fitPrompt(prompt, 120, 2).messages).toBe(prompt);
    expect(fitPrompt(prompt, 119, 2).messages.length).toBe(5);
  });

  test("a tool call leaves with its results; the system message and the last user message stay", () => {
    const call: ChatMessage = { role: "assistant", content: "", tool_calls: [{ id: "c", name: "t", arguments: "" }] };
    const withTools = [sized("system", 10), sized("user", 10), call, sized("tool", 10), sized("tool", 10), sized("assistant", 10), sized("user", 10)];
    const fitted = fitPrompt(withTools, promptTokens(withTools) - 11).messages;
    expect(fitted.map((m) => m.role)).toEqual(["system", "assistant", "user"]);
    const tiny = fitPrompt(withTools, 1).messages;
    expect(tiny.map((m) => m.role)).toEqual(["system", "user"]);
  });
});

describe("cutting tool results", () => {
  test("at the budget a result stays whole; one token past, it is cut with a note", () => {
    const budget = 100;
    const whole = "r".repeat(budget * 4);
    expect(cutToolResult(whole, budget)).toBe(whole);
    const over = whole + "r";
    const cut = cutToolResult(over, budget);
    expect(cut.startsWith("r".repeat(budget * 4 - 40))).toBe(true);
    expect(cut).toContain(`of ${over.length} characters left out of the prompt; the session keeps the whole result`);
  });

  test("only tool messages are cut, and a prompt with none cut keeps its array", () => {
    const messages: ChatMessage[] = [
      { role: "user", content: "u".repeat(1000) },
      { role: "tool", content: "t".repeat(1000), tool_call_id: "c" },
    ];
    const cut = cutToolResults(messages, 100);
    expect(cut[0]).toBe(messages[0]!);
    expect(cut[1]!.content).toContain("[cut:");
    expect(messages[1]!.content).toBe("t".repeat(1000));
    expect(cutToolResults(messages, 250)).toBe(messages);
  });
});

describe("the correction ratio", () => {
  test("learned from the provider's count, bounded, per session, and forgets the oldest sessions", () => {
    const ratios = new ContextRatios();
    expect(ratios.get("a")).toBe(1);
    ratios.learn("a", 100, 150);
    expect(ratios.get("a")).toBe(1.5);
    ratios.learn("a", 100, 10_000);
    expect(ratios.get("a")).toBe(RATIO_MAX);
    ratios.learn("a", 100, 1);
    expect(ratios.get("a")).toBe(RATIO_MIN);
    ratios.learn("a", 100, undefined);
    expect(ratios.get("a")).toBe(RATIO_MIN);
    for (let i = 0; i < RATIO_SESSIONS_MAX; i++) ratios.learn(`s${i}`, 100, 120);
    expect(ratios.get("a")).toBe(1); // the oldest, forgotten at RATIO_SESSIONS_MAX + 1
    expect(ratios.get("s0")).toBe(1.2);
  });
});

describe("the recent tail a compaction keeps", () => {
  const row = (seq: number, role: StoredMessage["role"], tokens: number): StoredMessage => ({ seq, role, content: "x".repeat((tokens - MESSAGE_OVERHEAD_TOKENS) * 4), createdAt: "" });
  const rows = [row(1, "user", 10), row(2, "assistant", 10), row(3, "user", 10), row(4, "assistant", 10), row(5, "user", 10), row(6, "assistant", 10)];

  test("everything within the budget: nothing to fold", () => {
    expect(tailStart(rows, 60)).toBe(0);
  });

  test("the tail starts at a user message within the budget", () => {
    expect(tailStart(rows, 59)).toBe(2);
    expect(tailStart(rows, 40)).toBe(2);
    expect(tailStart(rows, 39)).toBe(4);
    expect(tailStart(rows, 20)).toBe(4);
  });

  test("no user message starts a tail that small: every message is folded", () => {
    expect(tailStart(rows, 19)).toBe(6);
    expect(tailStart([], 0)).toBe(0);
  });
});
