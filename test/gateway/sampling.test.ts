/**
 * A request's own sampling on every wire: temperature and the longest answer reach the provider (capped by what the
 * model is known to give), and an answer format (response_format, text.format) is asked of the provider, checked on
 * the answer, corrected once, and refused when it still does not fit.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { ANSWER_FORMAT_CORRECTIONS } from "../../src/agent/turn.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { harness, json, readSse, type Harness } from "./harness.ts";

let fake: FakeServer;
let h: Harness;

beforeAll(async () => {
  fake = startFakeOpenAI();
  h = await harness({ fake, config: { memory: { auto_recall: false } } });
});
afterAll(async () => {
  await h.close();
  await fake.stop();
});
beforeEach(() => fake.reset());

const post = (path: string, body: Record<string, unknown>) => h.call(path, { method: "POST", json: body, auth: true });
const sent = () => fake.chatRequests().map((request) => request.body as Record<string, unknown>);
const person = {
  type: "object",
  properties: { name: { type: "string" }, age: { type: "integer" } },
  required: ["name", "age"],
  additionalProperties: false,
};

describe("temperature and the longest answer", () => {
  test("chat completions: temperature and max_completion_tokens (over max_tokens) reach the provider", async () => {
    const response = await post("/v1/chat/completions", {
      model: "fake-model",
      messages: [{ role: "user", content: "hi" }],
      temperature: 0.3,
      max_tokens: 50,
      max_completion_tokens: 70,
    });
    expect(response.status).toBe(200);
    expect(sent()[0]).toMatchObject({ temperature: 0.3, max_tokens: 70 });
  });

  test("responses: temperature and max_output_tokens reach the provider and are echoed", async () => {
    const body = await json(post("/v1/responses", { model: "fake-model", input: "hi", temperature: 1.5, max_output_tokens: 33, store: false }));
    expect(body).toMatchObject({ temperature: 1.5, max_output_tokens: 33, status: "completed" });
    expect(sent()[0]).toMatchObject({ temperature: 1.5, max_tokens: 33 });
  });

  test("messages: max_tokens and temperature reach the provider; none given leaves the config's", async () => {
    const response = await post("/v1/messages", { model: "fake-model", max_tokens: 64, temperature: 0.2, messages: [{ role: "user", content: "hi" }] });
    expect(response.status).toBe(200);
    expect(sent()[0]).toMatchObject({ temperature: 0.2, max_tokens: 64 });
    await post("/v1/chat/completions", { model: "fake-model", messages: [{ role: "user", content: "plain" }] });
    expect(sent()[1]!.max_tokens).toBeUndefined();
  });
});

describe("answer formats", () => {
  test("json_schema: asked natively, an answer that fits passes untouched", async () => {
    fake.enqueue({ type: "text", text: '{"name":"Ada","age":36}' });
    const body = await json(
      post("/v1/chat/completions", {
        model: "fake-model",
        messages: [{ role: "user", content: "who" }],
        response_format: { type: "json_schema", json_schema: { name: "person", schema: person, strict: true } },
      }),
    );
    expect(body.choices[0].message.content).toBe('{"name":"Ada","age":36}');
    expect(sent()[0]!.response_format).toEqual({ type: "json_schema", json_schema: { name: "person", schema: person, strict: true } });
    expect(sent()).toHaveLength(1);
  });

  test(`an answer that does not fit is sent back with what is wrong, ${ANSWER_FORMAT_CORRECTIONS} time; the corrected one is the answer`, async () => {
    fake.enqueue({ type: "text", text: '{"name":"Ada"}' }, { type: "text", text: '{"name":"Ada","age":36}' });
    const body = await json(
      post("/v1/responses", {
        model: "fake-model",
        input: "who",
        store: false,
        text: { format: { type: "json_schema", name: "person", schema: person } },
      }),
    );
    expect(body.status).toBe("completed");
    expect(body.output[0].content[0].text).toBe('{"name":"Ada","age":36}');
    const second = sent()[1]!.messages as Array<{ role: string; content: string }>;
    expect(second.at(-1)!.content).toContain('it does not validate against the schema "person": age: is required');
  });

  test("an answer that still does not fit after its corrections fails the request, naming the field", async () => {
    const wrong = Array.from({ length: ANSWER_FORMAT_CORRECTIONS + 1 }, () => ({ type: "text" as const, text: "not json" }));
    fake.enqueue(...wrong, { type: "text", text: "{}" });
    const response = await post("/v1/chat/completions", {
      model: "fake-model",
      messages: [{ role: "user", content: "who" }],
      response_format: { type: "json_object" },
    });
    expect(response.status).toBe(502);
    const error = (await json(response)).error;
    expect(error.param).toBe("response_format");
    expect(error.message).toContain("it is not JSON");
    expect(sent()).toHaveLength(ANSWER_FORMAT_CORRECTIONS + 1);
  });

  test("streamed: the checked answer arrives whole; a failing one is an error event and response.failed", async () => {
    fake.enqueue({ type: "text", text: "[1,2]" }, { type: "text", text: '{"ok":true}' });
    const ok = await readSse(await post("/v1/responses", { model: "fake-model", input: "x", stream: true, store: false, text: { format: { type: "json_object" } } }));
    const deltas = ok.filter((event) => event.event === "response.output_text.delta").map((event) => (JSON.parse(event.data) as { delta: string }).delta);
    expect(deltas).toEqual(['{"ok":true}']);
    fake.enqueue({ type: "text", text: "nope" }, { type: "text", text: "still nope" });
    const bad = await readSse(await post("/v1/responses", { model: "fake-model", input: "x", stream: true, store: false, text: { format: { type: "json_object" } } }));
    const types = bad.map((event) => event.event);
    expect(types).not.toContain("response.output_text.delta");
    expect(types.slice(-2)).toEqual(["error", "response.failed"]);
  });

  test("a schema that cannot be compiled is the client's 400 naming it", async () => {
    const response = await post("/v1/responses", {
      model: "fake-model",
      input: "x",
      text: { format: { type: "json_schema", name: "bad", schema: { type: "object", properties: { a: { type: "nonsense" } } } } },
    });
    expect(response.status).toBe(400);
    expect((await json(response)).error.param).toBe("text.format.schema");
    expect(sent()).toHaveLength(0);
  });
});
