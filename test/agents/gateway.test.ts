/** The gateway's agents: `agent:<id>` models on the OpenAI API, an agent field and filter on the session API. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { harness, json, type Harness } from "../gateway/harness.ts";

let fake: FakeServer;
let h: Harness;

beforeAll(async () => {
  fake = startFakeOpenAI();
  h = await harness({
    fake,
    config: {
      agent: { system_prompt: "You are main." },
      agents: { work: { system_prompt: "You are the work agent.", default_model: "fake-big" } },
    },
  });
});
afterAll(async () => {
  await h.close();
  await fake.stop();
});

function lastSent(): { model: string; messages: Array<{ role: string; content: string }> } {
  return fake.chatRequests().at(-1)!.body as never;
}

test("/v1/models lists agent:<id> for every agent", async () => {
  const ids = (await json(h.call("/v1/models"))).data.map((m: { id: string }) => m.id);
  expect(ids).toContain("agent:main");
  expect(ids).toContain("agent:work");
});

test('model = "agent:work" on chat completions selects the work agent: its prompt and its model', async () => {
  const body = await json(h.call("/v1/chat/completions", { json: { model: "agent:work", messages: [{ role: "user", content: "hi" }] } }));
  expect(body.model).toBe("agent:work");
  expect(body.choices[0].message.content).toBe("echo: hi");
  expect(lastSent().model).toBe("fake-big");
  expect(lastSent().messages[0]).toEqual({ role: "system", content: "You are the work agent." });
  await json(h.call("/v1/chat/completions", { json: { model: "fake-model", messages: [{ role: "user", content: "hi" }] } }));
  expect(lastSent().messages[0]).toEqual({ role: "system", content: "You are main." });
  const missing = await h.call("/v1/chat/completions", { json: { model: "agent:ghost", messages: [{ role: "user", content: "hi" }] } });
  expect(missing.status).toBe(404);
});

test("the session API takes an agent and lists sessions by agent", async () => {
  const reply = await json(h.call("/api/sessions/gw-work/message", { json: { message: "hello", agent: "work" } }));
  expect(reply.model).toBe("fake-big");
  expect(lastSent().messages[0]!.content).toStartWith("You are the work agent.");
  await json(h.call("/api/sessions/gw-main/message", { json: { message: "hello" } }));
  const work = await json(h.call("/api/sessions?agent=work"));
  expect(work.sessions.map((s: { id: string; agent: string }) => [s.id, s.agent])).toEqual([["gw-work", "work"]]);
  const all = await json(h.call("/api/sessions"));
  expect(all.sessions.find((s: { id: string }) => s.id === "gw-main").agent).toBe("main");
  const unknown = await h.call("/api/sessions/gw-x/message", { json: { message: "hello", agent: "ghost" } });
  expect(unknown.status).toBe(404);
  expect((await json(unknown)).error.code).toBe("AGENT_NOT_FOUND");
});

test('model = "agent:work" selects the work agent on the Anthropic Messages and Responses APIs too', async () => {
  const messages = await h.call("/v1/messages", { json: { model: "agent:work", max_tokens: 100, messages: [{ role: "user", content: "hi" }] } });
  expect(messages.status).toBe(200);
  expect(lastSent().model).toBe("fake-big");
  expect(lastSent().messages[0]!.content).toStartWith("You are the work agent.");
  const responses = await h.call("/v1/responses", { json: { model: "agent:work", input: "hi", store: false } });
  expect(responses.status).toBe(200);
  expect(lastSent().model).toBe("fake-big");
  expect(lastSent().messages[0]!.content).toStartWith("You are the work agent.");
});
