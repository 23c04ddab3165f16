import { afterAll, expect, test } from "bun:test";
import { fakeServer, loadPlugin } from "@prx/kit/test";

// an OpenAI-compatible API on 127.0.0.1 (in the plugin's http_allowlist)
const api = fakeServer((request) => {
  const body = request.json<{ messages: { content: string }[] }>();
  const last = body.messages.at(-1)?.content ?? "";
  if (last === "fail") return { status: 503, body: { error: { message: "overloaded" } } };
  return { body: { choices: [{ message: { role: "assistant", content: `echo: ${last}` } }] } };
});
const plugin = await loadPlugin({ config: { base_url: `${api.url}/v1`, api_key: "test-key" } });
afterAll(async () => {
  await plugin.close();
  api.close();
});

test("answers through the API, sending the conversation, the model and the key", async () => {
  const reply = await plugin.chat([{ role: "user", content: "hello" }], { model: "llama3", temperature: 0.2 });
  expect(reply).toEqual({ text: "echo: hello", toolCalls: [] });
  const request = api.requests.at(-1)!;
  expect(request.path).toBe("/v1/chat/completions");
  expect(request.headers.authorization).toBe("Bearer test-key");
  expect(request.json()).toEqual({ model: "llama3", temperature: 0.2, messages: [{ role: "user", content: "hello" }] });
});

test("an API error is a provider error naming the status", async () => {
  await expect(plugin.chat("fail")).rejects.toThrow("answered 503");
});

test("hosts outside http_allowlist are refused by the host, not reached", async () => {
  const elsewhere = await loadPlugin({ config: { base_url: "http://example.com/v1" } });
  try {
    await expect(elsewhere.chat("hi")).rejects.toThrow("not in the http_allowlist");
  } finally {
    await elsewhere.close();
  }
});
