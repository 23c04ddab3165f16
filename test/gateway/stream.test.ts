import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { harness, readSse, type Harness, json } from "./harness.ts";

let fake: FakeServer;
let h: Harness;
beforeAll(async () => {
  fake = startFakeOpenAI();
  h = await harness({ fake });
});
afterAll(async () => {
  await h.close();
  await fake.stop();
});

const sse = { accept: "text/event-stream" };

describe("session message as SSE", () => {
  test("tool_call, tool_result, delta, done", async () => {
    const response = await h.call("/api/sessions/sse-1/message", {
      json: { message: 'use tool memory_store {"key":"cat","content":"Tom"}' },
      headers: sse,
    });
    expect(response.headers.get("content-type")).toStartWith("text/event-stream");
    expect(response.headers.get("x-request-id")).toBeTruthy();
    const events = await readSse(response);
    expect(events.map((e) => e.event)).toEqual([
      "tool_call",
      "tool_result",
      ...events.slice(2, -1).map(() => "delta"),
      "done",
    ]);
    expect(JSON.parse(events[0]!.data)).toMatchObject({
      name: "memory_store",
      arguments: '{"key":"cat","content":"Tom"}',
    });
    expect(JSON.parse(events[1]!.data)).toMatchObject({ name: "memory_store", success: true });
    const text = events
      .filter((e) => e.event === "delta")
      .map((e) => JSON.parse(e.data).text)
      .join("");
    const done = JSON.parse(events.at(-1)!.data);
    expect(done.reply).toBe(text);
    expect(done.reply).toStartWith("tool said:");
    expect(done.tool_calls).toHaveLength(1);
    expect(await h.host.memory.get("cat")).toMatchObject({ content: "Tom" });
  });

  test("a provider failure mid-stream ends with an error event; the session keeps what was said", async () => {
    fake.enqueue({ type: "stream_error", textBefore: "I was saying", message: "upstream exploded" });
    const events = await readSse(
      await h.call("/api/sessions/sse-2/message", { json: { message: "talk" }, headers: sse }),
    );
    expect(events.at(-1)!.event).toBe("error");
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({
      code: expect.stringMatching(/^PROVIDER_/),
      message: expect.any(String),
    });
    expect(
      events
        .filter((e) => e.event === "delta")
        .map((e) => JSON.parse(e.data).text)
        .join(""),
    ).toBe("I was saying");
    const stored = await h.host.sessions.messages("sse-2");
    expect(stored[0]).toMatchObject({ role: "user", content: "talk" });
    expect(stored[1]!.content).toStartWith("I was saying");
  });

  test("errors before the stream starts are plain JSON (shutting down: 503)", async () => {
    h.gw.turns.draining = true;
    const response = await h.call("/api/sessions/sse-3/message", { json: { message: "x" }, headers: sse });
    h.gw.turns.draining = false;
    expect(response.status).toBe(503);
    expect((await json(response)).error.message).toContain("shutting down");
  });
});

describe("OpenAI-compatible API (raw wire format)", () => {
  const completion = (json: unknown) => h.call("/v1/chat/completions", { json });

  test("non-streaming: chat.completion with the final assistant content and usage; nothing stored", async () => {
    const sessionsBefore = (await h.host.sessions.list(1000)).length;
    const response = await completion({
      model: "fake-model",
      messages: [
        { role: "system", content: "be nice" },
        { role: "user", content: "first" },
        { role: "assistant", content: "echo: first" },
        { role: "user", content: "second" },
      ],
    });
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body).toMatchObject({
      object: "chat.completion",
      model: "fake-model",
      choices: [{ index: 0, message: { role: "assistant", content: "echo: second" }, finish_reason: "stop" }],
      usage: { total_tokens: expect.any(Number) },
    });
    expect(body.id).toStartWith("chatcmpl-");
    const sent = fake.chatRequests().at(-1)!.body as { messages: Array<{ role: string; content: string }> };
    expect(sent.messages.map((m) => m.content)).toContain("echo: first");
    expect((await h.host.sessions.list(1000)).length).toBe(sessionsBefore);
  });

  test("a configured model or hint is honoured and reported", async () => {
    expect((await json(completion({ model: "fake-big", messages: [{ role: "user", content: "hi" }] }))).model).toBe(
      "fake-big",
    );
    expect((fake.chatRequests().at(-1)!.body as { model: string }).model).toBe("fake-big");
    expect((await json(completion({ model: "hint:fast", messages: [{ role: "user", content: "hi" }] }))).model).toBe(
      "hint:fast",
    );
    expect((fake.chatRequests().at(-1)!.body as { model: string }).model).toBe("fake-fast");
  });

  test("tool calls are the agent's own work: the client sees only the final content", async () => {
    const body = await json(
      completion({
        model: "fake-model",
        messages: [{ role: "user", content: 'use tool memory_store {"key":"k2","content":"v"}' }],
      }),
    );
    expect(body.choices[0].message.content).toStartWith("tool said:");
    expect(body.choices[0].message.tool_calls).toBeUndefined();
  });

  test("stream: true with include_usage: role chunk, deltas, stop, usage chunk, [DONE]", async () => {
    const response = await completion({
      model: "fake-model",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "stream me" }],
    });
    const events = await readSse(response);
    expect(events.at(-1)!.data).toBe("[DONE]");
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data));
    expect(chunks[0].choices[0].delta).toEqual({ role: "assistant", content: "", refusal: null });
    expect(chunks.every((c) => c.object === "chat.completion.chunk" && c.id === chunks[0].id)).toBe(true);
    const content = chunks
      .flatMap((c) => c.choices.map((choice: { delta: { content?: string } }) => choice.delta.content ?? ""))
      .join("");
    expect(content).toBe("echo: stream me");
    expect(chunks.at(-2).choices[0].finish_reason).toBe("stop");
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { total_tokens: expect.any(Number) } });
  });

  test("stream failure: an error data line, then [DONE]", async () => {
    fake.enqueue({ type: "stream_error", textBefore: "half", message: "nope" });
    const events = await readSse(
      await completion({ model: "fake-model", stream: true, messages: [{ role: "user", content: "x" }] }),
    );
    expect(events.at(-1)!.data).toBe("[DONE]");
    expect(JSON.parse(events.at(-2)!.data).error).toMatchObject({ code: expect.stringMatching(/^PROVIDER_/) });
  });

  test("bad requests: last message not from the user, no messages, unsupported parts", async () => {
    expect((await completion({ model: "fake-model", messages: [{ role: "assistant", content: "x" }] })).status).toBe(400);
    expect((await completion({ model: "fake-model", messages: [] })).status).toBe(400);
    const file = await completion({
      model: "fake-model",
      messages: [{ role: "user", content: [{ type: "file", file: { file_id: "x" } }] }],
    });
    expect((await json(file)).error.message).toContain("takes text, image_url and input_audio parts");
    const image = await completion({
      model: "fake-model",
      messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "x" } }] }],
    });
    expect((await json(image)).error.message).toContain("an image URL must be https: or data:");
  });

  test("GET /v1/models lists the default, provider models and hints", async () => {
    const body = await json(h.call("/v1/models"));
    expect(body.object).toBe("list");
    expect(body.data.map((m: { id: string }) => m.id)).toEqual(["fake-model", "fake-big", "hint:fast"]);
    expect(body.data[0]).toMatchObject({ object: "model", owned_by: "fake" });
  });
});
