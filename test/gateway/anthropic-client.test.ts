/**
 * Anthropic's Messages API served by the compiled binary, driven by the official `@anthropic-ai/sdk`: prx's default
 * provider is the fake OpenAI server, and `claude-fake` is served by a provider of kind anthropic on the fake
 * Anthropic server, so one wire is translated to the other and back.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { startFakeAnthropic } from "../fakes/anthropic-server.ts";
import type { FakeServer } from "../fakes/common.ts";
import { startFakeOpenAI, type FakeOpenAIServer } from "../fakes/openai-server.ts";
import { ensureBinary, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { tempWorkspace, type TempWorkspace } from "../helpers/workspace.ts";
import { png } from "../media/samples.ts";

setDefaultTimeout(60_000);

let openai: FakeOpenAIServer;
let anthropic: FakeServer;
let ws: TempWorkspace;
let gateway: RunningGateway;
let token = "";
let client: Anthropic;

const image = png(300, 150, 2048);
const imageBase64 = Buffer.from(image).toString("base64");

const weather: Anthropic.Tool = {
  name: "get_weather",
  description: "the weather in a city",
  input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

beforeAll(async () => {
  await ensureBinary();
  openai = startFakeOpenAI({ models: ["fake-model"] });
  anthropic = startFakeAnthropic({ models: ["claude-fake"], apiKey: "upstream-key" });
  ws = tempWorkspace(
    `default_provider = "fake"
default_model = "fake-model"
[providers.fake]
kind = "openai-compatible"
base_url = "${openai.url}"
models = ["fake-model"]
[providers.claude]
kind = "anthropic"
base_url = "${anthropic.url}"
api_key_env = "FAKE_ANTHROPIC_KEY"
models = ["claude-fake"]
[reliability]
retries = 0
[memory]
auto_recall = false
`,
    { prefix: "prx-anthropic-sdk-" },
  );
  gateway = await startGatewayBinary(ws.dir, { FAKE_ANTHROPIC_KEY: "upstream-key" });
  const paired = await fetch(`${gateway.url}/pair`, { method: "POST", headers: { "x-pairing-code": gateway.code! } });
  token = ((await paired.json()) as { token: string }).token;
  client = new Anthropic({ baseURL: gateway.url, apiKey: token, maxRetries: 0 });
}, 300_000);

afterAll(async () => {
  if (gateway && gateway.proc.exitCode === null) gateway.proc.kill("SIGKILL");
  await gateway?.proc.exited;
  await openai.stop();
  await anthropic.stop();
  ws.cleanup();
});

describe("@anthropic-ai/sdk against prx's POST /v1/messages", () => {
  test("messages.create: the message object, with the token in x-api-key", async () => {
    const message = await client.messages.create({
      model: "fake-model",
      max_tokens: 256,
      system: "be brief",
      messages: [{ role: "user", content: "hello from the sdk" }],
    });
    expect(message).toMatchObject({
      type: "message",
      role: "assistant",
      model: "fake-model",
      content: [{ type: "text", text: "echo: hello from the sdk" }],
      stop_reason: "end_turn",
      stop_sequence: null,
    });
    expect(message.id).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    const upstream = openai.chatRequests().at(-1)!.body as { messages: Array<{ role: string; content: unknown }> };
    expect(upstream.messages.filter((m) => m.role === "system").map((m) => m.content)).toContain("be brief");
  });

  test("messages.create on a model served by an Anthropic provider", async () => {
    const message = await client.messages.create({
      model: "claude-fake",
      max_tokens: 64,
      messages: [{ role: "user", content: [{ type: "text", text: "to claude" }] }],
    });
    expect(message.content as unknown).toEqual([{ type: "text", text: "echo: to claude" }]);
    expect(anthropic.chatRequests().at(-1)!.headers["x-api-key"]).toBe("upstream-key");
  });

  test("a client tool round trip: tool_use with stop_reason tool_use, then the tool_result continues the turn", async () => {
    const question: Anthropic.MessageParam = { role: "user", content: 'use tool get_weather {"city":"Paris"}' };
    const first = await client.messages.create({ model: "fake-model", max_tokens: 256, tools: [weather], messages: [question] });
    expect(first.stop_reason).toBe("tool_use");
    const use = first.content.find((block) => block.type === "tool_use")!;
    expect(use).toMatchObject({ type: "tool_use", name: "get_weather", input: { city: "Paris" } });
    const second = await client.messages.create({
      model: "fake-model",
      max_tokens: 256,
      tools: [weather],
      messages: [
        question,
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "sunny, 21 C" }] },
      ],
    });
    expect(second.stop_reason).toBe("end_turn");
    expect(second.content as unknown).toEqual([{ type: "text", text: "tool said: sunny, 21 C" }]);
    // the upstream got the call and its answer paired, as OpenAI's wire requires
    const sent = openai.chatRequests().at(-1)!.body as { messages: Array<Record<string, unknown>> };
    expect(sent.messages.at(-2)).toMatchObject({ role: "assistant", tool_calls: [{ id: use.id, function: { name: "get_weather" } }] });
    expect(sent.messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: use.id, content: "sunny, 21 C" });
  });

  test("the same round trip against the Anthropic provider", async () => {
    const question: Anthropic.MessageParam = { role: "user", content: 'use tool get_weather {"city":"Oslo"}' };
    const first = await client.messages.create({ model: "claude-fake", max_tokens: 256, tools: [weather], messages: [question] });
    const use = first.content.find((block) => block.type === "tool_use")!;
    expect(first.stop_reason).toBe("tool_use");
    const second = await client.messages.create({
      model: "claude-fake",
      max_tokens: 256,
      tools: [weather],
      messages: [
        question,
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: [{ type: "text", text: "snow" }] }] },
      ],
    });
    expect(second.content as unknown).toEqual([{ type: "text", text: "tool said: snow" }]);
  });

  test("an image block reaches the provider as an image", async () => {
    const message = await client.messages.create({
      model: "fake-model",
      max_tokens: 64,
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { type: "base64", media_type: "image/png", data: imageBase64 } },
            { type: "text", text: "what is this?" },
          ],
        },
      ],
    });
    expect(message.content as unknown).toEqual([{ type: "text", text: "echo: what is this?" }]);
    const sent = openai.chatRequests().at(-1)!.body as { messages: Array<{ role: string; content: unknown }> };
    expect(sent.messages.findLast((m) => m.role === "user")!.content).toEqual([
      { type: "text", text: "what is this?" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${imageBase64}` } },
    ]);
  });

  test("messages.stream: text deltas and the final message", async () => {
    const stream = client.messages.stream({
      model: "fake-model",
      max_tokens: 256,
      messages: [{ role: "user", content: "stream this answer please" }],
    });
    let text = "";
    const events: string[] = [];
    stream.on("text", (delta) => (text += delta));
    stream.on("streamEvent", (event) => events.push(event.type));
    const final = await stream.finalMessage();
    expect(text).toBe("echo: stream this answer please");
    expect(final.content as unknown).toEqual([{ type: "text", text: "echo: stream this answer please" }]);
    expect(final.stop_reason).toBe("end_turn");
    expect(final.usage.output_tokens).toBeGreaterThan(0);
    expect(events[0]).toBe("message_start");
    expect(events.slice(-2)).toEqual(["message_delta", "message_stop"]);
  });

  test("the event stream on the wire: each event named after its type, a ping after message_start", async () => {
    const response = await fetch(`${gateway.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": token, "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: JSON.stringify({ model: "fake-model", max_tokens: 32, stream: true, messages: [{ role: "user", content: "wire" }] }),
    });
    expect(response.headers.get("content-type")).toStartWith("text/event-stream");
    const events = (await response.text())
      .split("\n\n")
      .filter((block) => block.startsWith("event: "))
      .map((block) => {
        const [name, data] = block.split("\n");
        const parsed = JSON.parse(data!.slice("data: ".length)) as { type: string };
        expect(parsed.type).toBe(name!.slice("event: ".length));
        return parsed.type;
      });
    expect(events).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      ...events.filter((name) => name === "content_block_delta"),
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
  });

  test("messages.stream with a client tool: input_json_delta, stop_reason tool_use, then the result streamed", async () => {
    const question: Anthropic.MessageParam = { role: "user", content: 'use tool get_weather {"city":"Rome"}' };
    const stream = client.messages.stream({ model: "claude-fake", max_tokens: 256, tools: [weather], messages: [question] });
    const json: string[] = [];
    stream.on("inputJson", (partial) => json.push(partial));
    const first = await stream.finalMessage();
    expect(first.stop_reason).toBe("tool_use");
    const use = first.content.find((block) => block.type === "tool_use")!;
    expect(use.input).toEqual({ city: "Rome" });
    expect(json.join("")).toBe('{"city":"Rome"}');
    const next = client.messages.stream({
      model: "claude-fake",
      max_tokens: 256,
      tools: [weather],
      messages: [question, { role: "assistant", content: first.content }, { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "hot" }] }],
    });
    expect((await next.finalMessage()).content as unknown).toEqual([{ type: "text", text: "tool said: hot" }]);
  });

  test("stop_sequences cut the text, streamed and not", async () => {
    const params = { model: "fake-model", max_tokens: 64, stop_sequences: ["STOP"], messages: [{ role: "user" as const, content: "one two STOP three" }] };
    const message = await client.messages.create(params);
    expect(message).toMatchObject({ content: [{ type: "text", text: "echo: one two " }], stop_reason: "stop_sequence", stop_sequence: "STOP" });
    const streamed = await client.messages.stream(params).finalMessage();
    expect(streamed).toMatchObject({ content: [{ type: "text", text: "echo: one two " }], stop_reason: "stop_sequence", stop_sequence: "STOP" });
  });

  test("models.list: Anthropic's list of the served models", async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) {
      expect(model.type).toBe("model");
      ids.push(model.id);
    }
    expect(ids).toEqual(["fake-model", "claude-fake"]);
  });

  test("countTokens", async () => {
    const counted = await client.messages.countTokens({
      model: "fake-model",
      system: "be brief",
      tools: [weather],
      messages: [{ role: "user", content: "count these words please" }],
    });
    expect(counted.input_tokens).toBeGreaterThan(0);
    const more = await client.messages.countTokens({
      model: "fake-model",
      system: "be brief",
      tools: [weather],
      messages: [{ role: "user", content: "count these words please, and a good many more of them than before" }],
    });
    expect(more.input_tokens).toBeGreaterThan(counted.input_tokens);
  });

  test("errors are Anthropic's: a wrong key is AuthenticationError, an unknown model NotFoundError", async () => {
    const wrong = new Anthropic({ baseURL: gateway.url, apiKey: "prx_wrong", maxRetries: 0 });
    const denied = await wrong.messages.create({ model: "fake-model", max_tokens: 8, messages: [{ role: "user", content: "x" }] }).catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((denied as InstanceType<typeof Anthropic.AuthenticationError>).error).toMatchObject({ type: "error", error: { type: "authentication_error" } });
    const missing = await client.messages.create({ model: "claude-nope", max_tokens: 8, messages: [{ role: "user", content: "x" }] }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(Anthropic.NotFoundError);
    expect((missing as InstanceType<typeof Anthropic.NotFoundError>).error).toMatchObject({ type: "error", error: { type: "not_found_error" } });
    const forced = await client.messages
      .create({ model: "fake-model", max_tokens: 8, tools: [weather], tool_choice: { type: "any" }, messages: [{ role: "user", content: "x" }] })
      .catch((e: unknown) => e);
    expect(forced).toBeInstanceOf(Anthropic.BadRequestError);
    expect((forced as InstanceType<typeof Anthropic.BadRequestError>).message).toContain('tool_choice type "any"');
  });

  test("a bearer token works too, and anthropic-beta headers are accepted", async () => {
    const bearer = new Anthropic({ baseURL: gateway.url, authToken: token, apiKey: null, maxRetries: 0, defaultHeaders: { "anthropic-beta": "some-future-beta-2099-01-01" } });
    const message = await bearer.messages.create({ model: "fake-model", max_tokens: 8, messages: [{ role: "user", content: "bearer" }] });
    expect(message.content as unknown).toEqual([{ type: "text", text: "echo: bearer" }]);
  });

  test("a provider failure mid-stream is an error event the SDK raises", async () => {
    openai.enqueue({ type: "stream_error", textBefore: "partial", message: "kaput" });
    const stream = client.messages.stream({ model: "fake-model", max_tokens: 8, messages: [{ role: "user", content: "x" }] });
    await expect(stream.finalMessage()).rejects.toThrow(/kaput/);
  });
});
