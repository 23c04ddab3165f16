import { describe, expect, test } from "bun:test";
import {
  OFFLINE_KEY_MAX_CHARS,
  OfflineProvider,
  offlineMemoryKey,
  splitForStreaming,
} from "../../src/providers/offline.ts";
import type { ChatMessage, StreamDelta, ToolSpec } from "../../src/providers/types.ts";

const tools: ToolSpec[] = ["memory_store", "memory_recall"].map((name) => ({
  name,
  description: name,
  parameters: { type: "object" },
}));
const user = (content: string): ChatMessage => ({ role: "user", content });
const offline = new OfflineProvider();

describe("OfflineProvider", () => {
  test("echo reply is deterministic, says it is offline and how to configure a provider", async () => {
    const a = await offline.chat({ model: "offline", messages: [user("hello there")] });
    const b = await offline.chat({ model: "offline", messages: [user("hello there")] });
    expect(a).toEqual(b);
    expect(a.text).toContain("hello there");
    expect(a.text).toContain("offline");
    expect(a.text).toContain('api_key_env = "OPENAI_API_KEY"');
    expect(a.text).toContain("prx init");
    expect(a.toolCalls).toEqual([]);
    expect(a.provider).toBe("offline");
    expect(a.usage!.total_tokens).toBeGreaterThan(0);
  });

  test("remember X -> memory_store call, then a confirmation after the tool result", async () => {
    const messages = [user("remember that my favourite colour is blue")];
    const first = await offline.chat({ model: "offline", messages, tools });
    expect(first.toolCalls).toEqual([
      {
        id: "call_offline_1",
        name: "memory_store",
        arguments: JSON.stringify({ key: "my-favourite-colour-is-blue", content: "my favourite colour is blue" }),
      },
    ]);
    expect(first.finishReason).toBe("tool_calls");
    const history: ChatMessage[] = [
      ...messages,
      { role: "assistant", content: "", tool_calls: first.toolCalls },
      { role: "tool", content: "stored", tool_call_id: "call_offline_1", name: "memory_store" },
    ];
    const second = await offline.chat({ model: "offline", messages: history, tools });
    expect(second.toolCalls).toEqual([]);
    expect(second.text).toContain("my favourite colour is blue");
    expect(second.text).toContain("my-favourite-colour-is-blue");
  });

  test("recall X -> memory_recall call, then a reply listing what the tool returned", async () => {
    const messages = [user("What do you remember about colour?")];
    const first = await offline.chat({ model: "offline", messages, tools });
    expect(first.toolCalls).toEqual([{ id: "call_offline_1", name: "memory_recall", arguments: '{"query":"colour"}' }]);
    const recalled = JSON.stringify([{ key: "fav", content: "my favourite colour is blue" }]);
    const history: ChatMessage[] = [
      ...messages,
      { role: "assistant", content: "", tool_calls: first.toolCalls },
      { role: "tool", content: recalled, tool_call_id: "call_offline_1" },
    ];
    const second = await offline.chat({ model: "offline", messages: history, tools });
    expect(second.text).toContain('"colour"');
    expect(second.text).toContain("- fav: my favourite colour is blue");
    const plain = await offline.chat({
      model: "offline",
      messages: [...history.slice(0, 2), { role: "tool", content: "fav: blue", tool_call_id: "call_offline_1" }],
    });
    expect(plain.text).toContain("fav: blue");
  });

  test("without the memory tools on offer, remember is just echoed", async () => {
    const result = await offline.chat({ model: "offline", messages: [user("remember milk")] });
    expect(result.toolCalls).toEqual([]);
    expect(result.text).toContain("remember milk");
  });

  test("tool call ids count the calls already in the history", async () => {
    const history: ChatMessage[] = [
      user("remember a"),
      { role: "assistant", content: "", tool_calls: [{ id: "call_offline_1", name: "memory_store", arguments: "{}" }] },
      { role: "tool", content: "ok", tool_call_id: "call_offline_1" },
      { role: "assistant", content: "done" },
      user("recall a"),
    ];
    const result = await offline.chat({ model: "offline", messages: history, tools });
    expect(result.toolCalls[0]!.id).toBe("call_offline_2");
  });

  test("streams its reply in a few deltas that add up to the text", async () => {
    const deltas: StreamDelta[] = [];
    const messages = [user("a b c d e f")];
    const result = await offline.chat({ model: "offline", messages, onDelta: (d) => deltas.push(d) });
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.length).toBeLessThanOrEqual(4);
    expect(deltas.map((d) => (d.type === "text" ? d.text : "")).join("")).toBe(result.text);
    expect(splitForStreaming("")).toEqual([]);
  });

  test("memory keys: slug of the first words, bounded", () => {
    expect(offlineMemoryKey("My Dog's name is Rex!")).toBe("my-dog-s-name-is-rex");
    expect(offlineMemoryKey("???")).toBe("note");
    const long = offlineMemoryKey("a".repeat(OFFLINE_KEY_MAX_CHARS + 10));
    expect(long.length).toBe(OFFLINE_KEY_MAX_CHARS);
    expect(offlineMemoryKey("b".repeat(OFFLINE_KEY_MAX_CHARS))).toHaveLength(OFFLINE_KEY_MAX_CHARS);
  });
});
