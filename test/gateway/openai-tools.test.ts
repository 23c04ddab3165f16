/**
 * Client-side tools through the OpenAI-compatible API, driven by the official `openai` client against a listening
 * gateway and a fake OpenAI server that calls tools as the real API does ("use tool <name> <json>" in the last user
 * message, or a scripted answer; after a tool message it answers "tool said: <result>").
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import type { RunnableToolFunctionWithParse } from "openai/lib/RunnableFunction";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { startGateway, type GatewayServer } from "../../src/gateway/server.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { json, readSse } from "./harness.ts";

let fake: FakeServer;
let host: AgentHost;
let gateway: GatewayServer;
let client: OpenAI;
let token: string;
let dir: string;

beforeAll(async () => {
  fake = startFakeOpenAI();
  dir = mkdtempSync(join(tmpdir(), "prx-gw-tools-"));
  const config = ConfigSchema.parse({
    default_provider: "fake",
    default_model: "fake-model",
    // tools called here run without asking for approval
    autonomy: { level: "full" },
    providers: { fake: { base_url: fake.url, models: ["fake-model"] } },
    reliability: { retries: 0 },
    memory: { auto_recall: false },
  });
  host = await openAgentHost({ workspace: dir, config });
  gateway = await startGateway({ host, port: 0, handleSignals: false, version: "test", print: () => {}, accessLog: () => {} });
  token = (await gateway.context.auth.tokens.create("tools")).token;
  client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: token, maxRetries: 0 });
});

afterAll(async () => {
  await gateway.stop();
  await host.close();
  await fake.stop();
  rmSync(dir, { recursive: true, force: true });
});

const weather: OpenAI.ChatCompletionTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "the weather in a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};
const ask = 'use tool get_weather {"city":"Paris"}';
const sentTools = () =>
  ((fake.chatRequests().at(-1)!.body.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);

const callNames = (answer: OpenAI.ChatCompletion) =>
  (answer.choices[0]!.message.tool_calls ?? []).map((call) => (call.type === "function" ? call.function.name : call.type));

const raw = (body: unknown) =>
  fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });

describe("client tools with the official openai client", () => {
  test("non-streaming: the answer carries the call, the follow-up with the result continues the turn", async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: ask }];
    const first = await client.chat.completions.create({ model: "fake-model", messages, tools: [weather] });
    expect(sentTools()).toEqual([
      "memory_store",
      "memory_recall",
      "memory_forget",
      "file_read",
      "file_write",
      "file_edit",
      "web_fetch",
      "sessions_list",
      "sessions_history",
      "delegate",
      "cron",
      "get_weather",
    ]);
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message).toEqual({
      role: "assistant",
      content: null,
      refusal: null,
      tool_calls: [{ id: expect.stringMatching(/^call_/), type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
    });
    const call = choice.message.tool_calls![0]!;
    messages.push(choice.message, { role: "tool", tool_call_id: call.id, content: "18C and sunny" });
    const second = await client.chat.completions.create({ model: "fake-model", messages, tools: [weather] });
    expect(second.choices[0]!.finish_reason).toBe("stop");
    expect(second.choices[0]!.message.content).toBe("tool said: 18C and sunny");
    // The provider saw the conversation as the client holds it: the call, then its result, and no new user message.
    const sent = fake.chatRequests().at(-1)!.body.messages as Array<{ role: string; tool_call_id?: string }>;
    expect(sent.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(sent.at(-1)!.tool_call_id).toBe(call.id);
  });

  test("streaming: ChatCompletionStream assembles the call; the raw chunks are OpenAI's", async () => {
    const stream = client.chat.completions.stream({ model: "fake-model", messages: [{ role: "user", content: ask }], tools: [weather] });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.finish_reason).toBe("tool_calls");
    expect(final.choices[0]!.message.tool_calls).toEqual([
      { id: expect.stringMatching(/^call_/), type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
    ]);

    const events = await readSse(
      await raw({ model: "fake-model", stream: true, messages: [{ role: "user", content: ask }], tools: [weather] }),
    );
    expect(events.at(-1)!.data).toBe("[DONE]");
    const deltas = events.slice(0, -1).map((e) => JSON.parse(e.data).choices[0]);
    expect(deltas[0]).toEqual({
      index: 0,
      delta: {
        role: "assistant",
        content: null,
        tool_calls: [{ index: 0, id: expect.any(String), type: "function", function: { name: "get_weather", arguments: "" } }],
        refusal: null,
      },
      logprobs: null,
      finish_reason: null,
    });
    expect(deltas[1].delta).toEqual({ tool_calls: [{ index: 0, function: { arguments: '{"city":"Paris"}' } }] });
    expect(deltas[2]).toEqual({ index: 0, delta: {}, logprobs: null, finish_reason: "tool_calls" });
    expect(deltas).toHaveLength(3);
  });

  test("runTools: the client's tool-calling loop runs the tool and gets the final answer", async () => {
    const seen: unknown[] = [];
    const runner = client.chat.completions.runTools({
      model: "fake-model",
      messages: [{ role: "user", content: ask }],
      tools: [
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "the weather in a city",
            parameters: weather.function.parameters!,
            parse: (input: string) => JSON.parse(input) as { city: string },
            function: (args: { city: string }) => {
              seen.push(args);
              return `rain in ${args.city}`;
            },
          },
        },
      ] satisfies RunnableToolFunctionWithParse<{ city: string }>[],
    });
    expect(await runner.finalContent()).toBe("tool said: rain in Paris");
    expect(seen).toEqual([{ city: "Paris" }]);
  });

  test("server tools run inside the turn before a client call ends it", async () => {
    fake.enqueue(
      { type: "tool_calls", calls: [{ name: "memory_store", arguments: { key: "city", content: "Paris" } }] },
      { type: "tool_calls", calls: [{ name: "get_weather", arguments: { city: "Paris" } }] },
    );
    const before = fake.chatRequests().length;
    const answer = await client.chat.completions.create({ model: "fake-model", messages: [{ role: "user", content: "weather at home?" }], tools: [weather] });
    expect(fake.chatRequests().length - before).toBe(2);
    expect(callNames(answer)).toEqual(["get_weather"]);
    expect(await host.memory.get("city")).toMatchObject({ content: "Paris" });
  });

  test("a response calling both kinds returns the client's calls and does not run the server's", async () => {
    fake.enqueue({
      type: "tool_calls",
      text: "checking",
      calls: [
        { name: "memory_store", arguments: { key: "mixed", content: "never stored" } },
        { name: "get_weather", arguments: { city: "Oslo" } },
      ],
    });
    const before = fake.chatRequests().length;
    const answer = await client.chat.completions.create({ model: "fake-model", messages: [{ role: "user", content: "go" }], tools: [weather] });
    expect(fake.chatRequests().length - before).toBe(1);
    expect(answer.choices[0]!.finish_reason).toBe("tool_calls");
    expect(answer.choices[0]!.message.content).toBe("checking");
    expect(callNames(answer)).toEqual(["get_weather"]);
    expect(await host.memory.get("mixed")).toBeNull();
  });
});

describe("client tools: what is refused", () => {
  test("a client tool named like a server tool is a 400 naming it", async () => {
    const clash = { ...weather, function: { ...weather.function, name: "memory_store" } };
    const error = await client.chat.completions
      .create({ model: "fake-model", messages: [{ role: "user", content: "hi" }], tools: [clash] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toContain(
      'tools[0]: "memory_store" is the name of a tool this server runs itself',
    );
  });

  test("tool_choice none offers no tool; required, a named tool_choice and legacy functions are 400", async () => {
    await client.chat.completions.create({ model: "fake-model", messages: [{ role: "user", content: "hi" }], tools: [weather], tool_choice: "none" });
    expect(fake.chatRequests().at(-1)!.body.tools).toBeUndefined();
    const base = { model: "fake-model", messages: [{ role: "user", content: "hi" }], tools: [weather] };
    const required = await raw({ ...base, tool_choice: "required" });
    expect(required.status).toBe(400);
    expect((await json(required)).error.message).toContain('tool_choice "required" is not supported');
    const named = await raw({ ...base, tool_choice: { type: "function", function: { name: "get_weather" } } });
    expect((await json(named)).error.message).toContain("a named tool_choice is not supported");
    const legacy = await raw({ model: "fake-model", messages: base.messages, functions: [weather.function] });
    expect((await json(legacy)).error.message).toContain("the legacy functions field is not supported; send tools");
  });

  test("follow-ups must answer the calls they follow", async () => {
    const call = { id: "call_1", type: "function", function: { name: "get_weather", arguments: "{}" } };
    const user = { role: "user", content: ask };
    const stray = await raw({ model: "fake-model", tools: [weather], messages: [user, { role: "tool", tool_call_id: "call_9", content: "x" }] });
    expect(stray.status).toBe(400);
    expect((await json(stray)).error.message).toContain('messages[1]: tool_call_id "call_9" does not answer a pending tool call');
    const unanswered = await raw({
      model: "fake-model",
      tools: [weather],
      messages: [user, { role: "assistant", content: null, tool_calls: [call] }, { role: "user", content: "and?" }],
    });
    expect((await json(unanswered)).error.message).toContain("messages[1]: the assistant's tool calls call_1 have no tool message");
  });

  test(`at most OPENAI_MAX_TOOLS client tools: 128 pass, 129 are a 400`, async () => {
    const tools = (n: number) => Array.from({ length: n }, (_, i) => ({ ...weather, function: { ...weather.function, name: `t${i}` } }));
    const ok = await raw({ model: "fake-model", messages: [{ role: "user", content: "hi" }], tools: tools(128) });
    expect(ok.status).toBe(200);
    // the eleven built-ins the default config offers (memory, files, web_fetch, sessions, delegate, cron) and the client's own
    expect(sentTools()).toHaveLength(11 + 128);
    const over = await raw({ model: "fake-model", messages: [{ role: "user", content: "hi" }], tools: tools(129) });
    expect(over.status).toBe(400);
    expect((await json(over)).error.message).toContain("tools");
  });
});
