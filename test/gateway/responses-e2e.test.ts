/**
 * The OpenAI Responses API end to end: the compiled binary's `prx gateway` with the fake provider behind it, driven
 * by the real clients from npm: `openai` (responses.create, streamed and not, a function tool round trip chained by
 * previous_response_id), the Vercel AI SDK's default `openai(model)` (the Responses API) with tools, and LangChain's
 * ChatOpenAI with useResponsesApi. The fake calls a tool for "use tool <name> <json>" when it is offered and answers
 * "tool said: <result>" after a tool message, else "echo: <text>".
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createOpenAI } from "@ai-sdk/openai";
import { ChatOpenAI } from "@langchain/openai";
import { generateText, stepCountIs, streamText, tool } from "ai";
import OpenAI from "openai";
import { z } from "zod";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { startFakeOpenAIResponses } from "../fakes/openai-responses-server.ts";
import { ensureBinary, fakeProviderConfig, runPrx, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { json, readSse } from "./harness.ts";

setDefaultTimeout(60_000);

let fake: FakeServer;
let gateway: RunningGateway;
let token = "";
let dir = "";
let client: OpenAI;
const cleanups: (() => void)[] = [];

beforeAll(async () => {
  await ensureBinary();
  fake = startFakeOpenAI();
  const ws = tempWorkspace(fakeProviderConfig(fake.url, `models = ["fake-model"]\n[reliability]\nretries = 0\n[memory]\nauto_recall = false\n`), {
    prefix: "prx-responses-",
  });
  cleanups.push(ws.cleanup);
  dir = ws.dir;
  gateway = await startGatewayBinary(ws.dir);
  const paired = await fetch(`${gateway.url}/pair`, { method: "POST", headers: { "x-pairing-code": gateway.code! } });
  token = (await json(paired)).token;
  client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: token, maxRetries: 0 });
}, 300_000);

afterAll(async () => {
  if (gateway.proc.exitCode === null) gateway.proc.kill("SIGKILL");
  await gateway.proc.exited;
  await fake.stop();
  for (const cleanup of cleanups) cleanup();
});

const weather: OpenAI.Responses.FunctionTool = {
  type: "function",
  name: "get_weather",
  description: "the weather in a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
  strict: true,
};
const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${gateway.url}/v1/responses`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

describe("openai: responses.create", () => {
  test("a string input answers a completed response with one output_text message and usage", async () => {
    const response = await client.responses.create({ model: "fake-model", input: "hello responses", instructions: "be brief" });
    expect(response.id).toMatch(/^resp_[0-9a-f]{32}$/);
    expect(response.object).toBe("response");
    expect(response.status).toBe("completed");
    expect(response.model).toBe("fake-model");
    expect(response.output_text).toBe("echo: hello responses");
    expect(response.output).toHaveLength(1);
    expect(response.output[0]).toMatchObject({ type: "message", role: "assistant", status: "completed" });
    expect(response.usage!.input_tokens).toBeGreaterThan(0);
    expect(response.usage!.total_tokens).toBe(response.usage!.input_tokens + response.usage!.output_tokens);
    // the instructions reach the provider as the conversation's system message, after the agent's own
    const sent = fake.chatRequests().at(-1)!.body.messages as Array<{ role: string; content: unknown }>;
    expect(sent.filter((m) => m.role === "system").map((m) => m.content)).toContain("be brief");
  });

  test("stream: typed events with event lines and increasing sequence numbers, ending with response.completed", async () => {
    const stream = await client.responses.create({ model: "fake-model", input: "stream me", stream: true });
    const types: string[] = [];
    const sequence: number[] = [];
    let text = "";
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      sequence.push(event.sequence_number);
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.completed") completed = event.response;
    }
    expect(text).toBe("echo: stream me");
    expect(sequence).toEqual(sequence.map((_, i) => i));
    expect(types.slice(0, 4)).toEqual(["response.created", "response.in_progress", "response.output_item.added", "response.content_part.added"]);
    expect(types.slice(-4)).toEqual(["response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"]);
    expect(completed!.output).toMatchObject([{ type: "message", content: [{ type: "output_text", text: "echo: stream me" }] }]);
    // the raw wire: every data line is preceded by its event line, naming the same type
    const raw = await post({ model: "fake-model", input: "raw", stream: true });
    const events = await readSse(raw);
    expect(events.length).toBeGreaterThan(6);
    for (const event of events) expect(event.event).toBe((JSON.parse(event.data) as { type: string }).type);
  });

  test("a function tool round trip: the call as a function_call item, its output continued by previous_response_id", async () => {
    const first = await client.responses.create({ model: "fake-model", input: 'use tool get_weather {"city":"Paris"}', tools: [weather] });
    const call = first.output.find((item) => item.type === "function_call") as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call).toMatchObject({ name: "get_weather", arguments: '{"city":"Paris"}', status: "completed" });
    expect(call.id).toMatch(/^fc_/);
    const second = await client.responses.create({
      model: "fake-model",
      previous_response_id: first.id,
      input: [{ type: "function_call_output", call_id: call.call_id, output: "sunny, 21 C" }],
      tools: [weather],
    });
    expect(second.output_text).toBe("tool said: sunny, 21 C");
    expect(second.previous_response_id).toBe(first.id);
    // the provider got the whole chain: the user's message, the call and its result
    const sent = fake.chatRequests().at(-1)!.body.messages as Array<{ role: string; content: unknown; tool_calls?: unknown[] }>;
    expect(sent.some((m) => m.role === "user" && m.content === 'use tool get_weather {"city":"Paris"}')).toBe(true);
    expect(sent.some((m) => m.role === "assistant" && m.tool_calls?.length === 1)).toBe(true);
    expect(sent.at(-1)).toMatchObject({ role: "tool", content: "sunny, 21 C" });
  });

  test("a streamed function call: output_item.added, arguments delta and done, output_item.done", async () => {
    const stream = await client.responses.create({
      model: "fake-model",
      input: 'use tool get_weather {"city":"Oslo"}',
      tools: [weather],
      stream: true,
    });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const done = events.find((e) => e.type === "response.function_call_arguments.done") as OpenAI.Responses.ResponseFunctionCallArgumentsDoneEvent;
    expect(done.arguments).toBe('{"city":"Oslo"}');
    const added = events.find((e) => e.type === "response.output_item.added")!;
    expect((added as OpenAI.Responses.ResponseOutputItemAddedEvent).item).toMatchObject({ type: "function_call", name: "get_weather", arguments: "" });
    const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(completed.type).toBe("response.completed");
    expect(completed.response.output.map((item) => item.type)).toEqual(["function_call"]);
  });

  test("stored responses: GET, input_items, DELETE; another token sees none of them; store: false keeps nothing", async () => {
    const made = await client.responses.create({ model: "fake-model", input: [{ role: "user", content: [{ type: "input_text", text: "keep me" }] }], metadata: { run: "e2e" } });
    const got = await client.responses.retrieve(made.id);
    expect(got).toMatchObject({ id: made.id, status: "completed", metadata: { run: "e2e" } });
    expect(got.output_text).toBe("echo: keep me");
    const items = await client.responses.inputItems.list(made.id);
    expect(items.data).toHaveLength(1);
    expect(items.data[0]).toMatchObject({ type: "message", role: "user", content: [{ type: "input_text", text: "keep me" }] });

    const other = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: await newToken(), maxRetries: 0 });
    expect(await statusOf(other.responses.retrieve(made.id))).toBe(404);

    const deleted = await fetch(`${gateway.url}/v1/responses/${made.id}`, { method: "DELETE", headers: { authorization: `Bearer ${token}` } });
    expect(await json(deleted)).toEqual({ id: made.id, object: "response", deleted: true });
    expect(await statusOf(client.responses.retrieve(made.id))).toBe(404);

    const unstored = await client.responses.create({ model: "fake-model", input: "forget me", store: false });
    expect((unstored as unknown as { store: boolean }).store).toBe(false);
    expect(await statusOf(client.responses.retrieve(unstored.id))).toBe(404);
    const chained = await post({ model: "fake-model", input: "again", previous_response_id: unstored.id });
    expect(chained.status).toBe(404);
    expect((await json(chained)).error).toMatchObject({ param: "previous_response_id", code: "previous_response_not_found", type: "invalid_request_error" });
  });

  test("what prx cannot honour is a 400 naming the field; what is safe to leave out is accepted", async () => {
    const builtIn = await post({ model: "fake-model", input: "x", tools: [{ type: "web_search_preview" }] });
    expect(builtIn.status).toBe(400);
    const error = (await json(builtIn)).error;
    expect(error.type).toBe("invalid_request_error");
    expect(error.param).toBe("tools[0].type");
    expect(error.message).toContain("web_search_preview");
    const background = await post({ model: "fake-model", input: "x", background: true });
    expect(background.status).toBe(400);
    expect((await json(background)).error.message).toContain("background");
    const ignored = await post({ model: "fake-model", input: "fine", include: ["reasoning.encrypted_content"], reasoning: { effort: "low" } });
    expect(ignored.status).toBe(200);
    expect((await json(ignored)).output[0].content[0].text).toBe("echo: fine");
  });
});

/** The HTTP status a client call ended with (200 when it resolved). */
const statusOf = (call: Promise<unknown>) => call.then(
  () => 200,
  (error: { status?: number }) => error.status ?? 0,
);

/** A second token, made offline by `prx gateway token create` on the same workspace. */
async function newToken(): Promise<string> {
  const created = await runPrx(["gateway", "token", "create", "--name", "other", "-w", dir]);
  expect(created.code).toBe(0);
  return created.stdout.trim();
}

describe("the Vercel AI SDK's default openai(model): the Responses API", () => {
  const weatherTool = tool({
    description: "the weather in a city",
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }: { city: string }) => `cloudy in ${city}`,
  });

  test("generateText runs a client tool and answers from its result", async () => {
    const openai = createOpenAI({ baseURL: `${gateway.url}/v1`, apiKey: token });
    const result = await generateText({
      model: openai("fake-model"),
      prompt: 'use tool get_weather {"city":"Rome"}',
      tools: { get_weather: weatherTool },
      stopWhen: stepCountIs(3),
    });
    expect(result.steps[0]!.toolCalls.map((c) => c.toolName)).toEqual(["get_weather"]);
    expect(result.text).toBe("tool said: cloudy in Rome");
    // it spoke the Responses API: each step's response is stored under its resp_ id
    expect(result.response.id).toMatch(/^resp_/);
    expect((await client.responses.retrieve(result.response.id)).output_text).toBe("tool said: cloudy in Rome");
  });

  test("streamText streams the text", async () => {
    const openai = createOpenAI({ baseURL: `${gateway.url}/v1`, apiKey: token });
    const result = streamText({ model: openai("fake-model"), prompt: "sdk stream" });
    let text = "";
    for await (const piece of result.textStream) text += piece;
    expect(text).toBe("echo: sdk stream");
    expect((await result.usage).inputTokens).toBeGreaterThan(0);
  });
});

describe("LangChain ChatOpenAI with useResponsesApi", () => {
  test("invoke, stream, and a bound tool's call", async () => {
    const model = new ChatOpenAI({
      model: "fake-model",
      apiKey: token,
      configuration: { baseURL: `${gateway.url}/v1` },
      useResponsesApi: true,
      maxRetries: 0,
    });
    const answer = await model.invoke("langchain hello");
    expect(answer.text).toBe("echo: langchain hello");
    let streamed = "";
    for await (const chunk of await model.stream("langchain stream")) streamed += chunk.text;
    expect(streamed).toBe("echo: langchain stream");
    const withTool = model.bindTools([
      { type: "function", function: { name: "get_weather", description: "the weather", parameters: weather.parameters! } },
    ]);
    const called = await withTool.invoke('use tool get_weather {"city":"Lima"}');
    expect(called.tool_calls?.map((c) => [c.name, c.args])).toEqual([["get_weather", { city: "Lima" }]]);
  });
});

describe("a provider of kind openai-responses behind the binary", () => {
  test("chat completions and responses both reach the upstream's POST /responses (store: false), tools included", async () => {
    const upstream = startFakeOpenAIResponses();
    const ws = tempWorkspace(
      `default_provider = "up"\ndefault_model = "fake-model"\n[providers.up]\nkind = "openai-responses"\nbase_url = "${upstream.url}"\n` +
        `models = ["fake-model"]\n[reliability]\nretries = 0\n[memory]\nauto_recall = false\n`,
      { prefix: "prx-responses-up-" },
    );
    const running = await startGatewayBinary(ws.dir);
    try {
      const paired = await fetch(`${running.url}/pair`, { method: "POST", headers: { "x-pairing-code": running.code! } });
      const openai = new OpenAI({ baseURL: `${running.url}/v1`, apiKey: (await json(paired)).token, maxRetries: 0 });
      const completion = await openai.chat.completions.create({ model: "fake-model", messages: [{ role: "user", content: "via responses" }] });
      expect(completion.choices[0]!.message.content).toBe("echo: via responses");
      const stream = await openai.responses.create({ model: "fake-model", input: 'use tool get_weather {"city":"Bern"}', tools: [weather], stream: true });
      let args = "";
      for await (const event of stream) if (event.type === "response.function_call_arguments.done") args = event.arguments;
      expect(args).toBe('{"city":"Bern"}');
      const sent = upstream.chatRequests();
      expect(sent).toHaveLength(2);
      for (const request of sent) expect(request.body).toMatchObject({ store: false, include: ["reasoning.encrypted_content"] });
      expect(sent[1]!.body.stream).toBe(true);
      expect((sent[1]!.body.tools as Array<{ name: string }>).map((tool) => tool.name)).toContain("get_weather");
    } finally {
      running.proc.kill("SIGKILL");
      await running.proc.exited;
      await upstream.stop();
      ws.cleanup();
    }
  });
});
