/**
 * POST /v1/responses and the stored-response routes through the gateway app (app.handle) with the fake chat
 * completions provider behind it: item conversion, chaining, item references, listing, limits and refusals.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import {
  RESPONSES_CONTEXT_MAX_ITEMS,
  RESPONSES_INPUT_ITEMS_MAX,
  RESPONSES_METADATA_MAX_KEYS,
} from "../../src/gateway/responses/limits.ts";
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

const create = (body: Record<string, unknown>, auth: boolean | string = true) =>
  h.call("/v1/responses", { method: "POST", json: { model: "fake-model", ...body }, auth });
const sentMessages = () => fake.chatRequests().at(-1)!.body.messages as Array<{ role: string; content: unknown; tool_calls?: Array<{ id: string }> }>;
const tool = { type: "function", name: "lookup", parameters: { type: "object", properties: { q: { type: "string" } } } };

describe("POST /v1/responses", () => {
  test("items: system, developer and assistant messages join the history; the last user message is the turn's", async () => {
    const response = await create({
      instructions: "answer in French",
      input: [
        { role: "developer", content: [{ type: "input_text", text: "dev note" }] },
        { type: "message", role: "user", content: "first" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "first answer" }] },
        { role: "user", content: [{ type: "input_text", text: "second" }] },
      ],
    });
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body.output[0].content[0].text).toBe("echo: second");
    expect(body.instructions).toBe("answer in French");
    const sent = sentMessages();
    expect(sent.filter((m) => m.role === "system").map((m) => m.content)).toEqual(expect.arrayContaining(["answer in French", "dev note"]));
    expect(sent.slice(-3)).toEqual([
      { role: "user", content: "first" },
      { role: "assistant", content: "first answer" },
      { role: "user", content: "second" },
    ]);
  });

  test("previous_response_id carries the conversation, not the instructions; an item_reference names a stored output item", async () => {
    const first = await json(create({ input: "remember the word kiwi", instructions: "only for the first" }));
    const second = await json(create({ previous_response_id: first.id, input: "what was the word" }));
    expect(second.previous_response_id).toBe(first.id);
    const sent = sentMessages();
    expect(sent.map((m) => m.content)).not.toContain("only for the first");
    expect(sent.slice(-3)).toEqual([
      { role: "user", content: "remember the word kiwi" },
      { role: "assistant", content: "echo: remember the word kiwi" },
      { role: "user", content: "what was the word" },
    ]);
    await create({ input: [{ role: "user", content: "earlier" }, { type: "item_reference", id: first.output[0].id }, { role: "user", content: "now" }] });
    expect(sentMessages().slice(-3)).toEqual([
      { role: "user", content: "earlier" },
      { role: "assistant", content: "echo: remember the word kiwi" },
      { role: "user", content: "now" },
    ]);
    const missing = await create({ input: [{ type: "item_reference", id: "msg_nothere" }, { role: "user", content: "x" }] });
    expect(missing.status).toBe(400);
    expect((await json(missing)).error).toMatchObject({ message: "Item with id 'msg_nothere' not found.", param: "input[0].id" });
  });

  test("a whole conversation with a function call and its output continues the turn; reasoning items are left out", async () => {
    const response = await create({
      tools: [tool],
      input: [
        { role: "user", content: "look it up" },
        { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "opaque" },
        { type: "function_call", call_id: "call_9", name: "lookup", arguments: '{"q":"x"}' },
        { type: "function_call_output", call_id: "call_9", output: "found it" },
      ],
    });
    expect((await json(response)).output[0].content[0].text).toBe("tool said: found it");
    const sent = sentMessages();
    expect(sent.at(-2)).toMatchObject({ role: "assistant", tool_calls: [{ id: "call_9" }] });
    expect(sent.at(-1)).toMatchObject({ role: "tool", content: "found it" });
    const orphan = await create({ input: [{ role: "user", content: "x" }, { type: "function_call_output", call_id: "nope", output: "?" }] });
    expect(orphan.status).toBe(400);
  });

  test("text.format json_schema is asked of the model as an instruction and natively, and echoed", async () => {
    const format = { type: "json_schema", name: "city", schema: { type: "object", properties: { name: { type: "string" } } } };
    fake.enqueue({ type: "text", text: '{"name":"Lisbon"}' });
    const body = await json(create({ input: "a city", text: { format } }));
    expect(body.text.format).toEqual(format);
    expect(fake.chatRequests().at(-1)!.body.response_format).toEqual({ type: "json_schema", json_schema: { name: "city", schema: format.schema } });
    const system = sentMessages().filter((m) => m.role === "system").map((m) => String(m.content));
    expect(system.some((line) => line.includes('named "city"') && line.includes('"properties"'))).toBe(true);
  });

  test("metadata: at most 16 keys (16 pass, 17 are a 400 naming the field)", async () => {
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, "v"]));
    expect((await create({ input: "m", metadata: keys(RESPONSES_METADATA_MAX_KEYS), store: false })).status).toBe(200);
    const over = await create({ input: "m", metadata: keys(RESPONSES_METADATA_MAX_KEYS + 1) });
    expect(over.status).toBe(400);
    expect((await json(over)).error).toMatchObject({ param: "metadata", type: "invalid_request_error" });
  });

  test("the chained conversation holds at most RESPONSES_CONTEXT_MAX_ITEMS items: at the limit passes, one more fails", async () => {
    const items = (n: number) => [
      ...Array.from({ length: n - 1 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `m${i}` })),
      { role: "user", content: "last" },
    ];
    // a stored response's context is its input and its one output item; the follow-up adds one input item
    const fitting = await json(create({ input: items(RESPONSES_CONTEXT_MAX_ITEMS - 2) }));
    expect((await create({ previous_response_id: fitting.id, input: "ok", store: false })).status).toBe(200);
    const full = await json(create({ input: items(RESPONSES_CONTEXT_MAX_ITEMS - 1) }));
    const over = await create({ previous_response_id: full.id, input: "one too many", store: false });
    expect(over.status).toBe(400);
    expect((await json(over)).error.message).toContain(`more than ${RESPONSES_CONTEXT_MAX_ITEMS}`);
  });

  test("refused with the field named: tool types, tool_choice required, conversation, other include values, input_file", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ tools: [{ type: "file_search", vector_store_ids: ["vs_1"] }] }, "file_search"],
      [{ tools: [{ type: "computer_use_preview", display_width: 1, display_height: 1, environment: "linux" }] }, "computer_use_preview"],
      [{ tools: [{ type: "custom", name: "g", format: { type: "grammar" } }] }, "custom"],
      [{ tool_choice: "required" }, "tool_choice"],
      [{ conversation: "conv_1" }, "conversation"],
      [{ include: ["file_search_call.results"] }, "include"],
      [{ input: [{ role: "user", content: [{ type: "input_file", file_id: "file_1" }] }] }, "input_file"],
    ];
    for (const [extra, named] of cases) {
      const response = await create({ input: "x", ...extra });
      expect(response.status, named).toBe(400);
      const error = (await json(response)).error;
      expect(error.type).toBe("invalid_request_error");
      expect(error.message, named).toContain(named);
    }
  });

  test("a model this gateway does not serve is OpenAI's 404 model_not_found", async () => {
    const response = await create({ model: "gpt-nope", input: "x" });
    expect(response.status).toBe(404);
    expect((await json(response)).error.code).toBe("model_not_found");
  });

  test("a streamed failure: error, then response.failed", async () => {
    fake.enqueue({ type: "error", status: 500 });
    const events = await readSse(await create({ input: "fail", stream: true }));
    expect(events.map((e) => e.event)).toEqual(["response.created", "response.in_progress", "error", "response.failed"]);
    expect(JSON.parse(events.at(-1)!.data).response.status).toBe("failed");
  });
});

describe("stored responses", () => {
  test("input_items pages newest first by default, with after/before and limit at its bounds", async () => {
    const input = Array.from({ length: 5 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `i${i}` }));
    const made = await json(create({ input }));
    const list = await json(h.call(`/v1/responses/${made.id}/input_items?limit=2`));
    expect(list.data.map((item: { content: string }) => item.content)).toEqual(["i4", "i3"]);
    expect(list.has_more).toBe(true);
    const next = await json(h.call(`/v1/responses/${made.id}/input_items?limit=2&after=${list.last_id}`));
    expect(next.data.map((item: { content: string }) => item.content)).toEqual(["i2", "i1"]);
    const asc = await json(h.call(`/v1/responses/${made.id}/input_items?order=asc`));
    expect(asc.data.map((item: { content: string }) => item.content)).toEqual(["i0", "i1", "i2", "i3", "i4"]);
    expect(asc.has_more).toBe(false);
    expect((await h.call(`/v1/responses/${made.id}/input_items?limit=${RESPONSES_INPUT_ITEMS_MAX}`)).status).toBe(200);
    expect((await h.call(`/v1/responses/${made.id}/input_items?limit=${RESPONSES_INPUT_ITEMS_MAX + 1}`)).status).toBe(400);
  });

  test("another token gets a 404 for GET, DELETE and input_items; the owner deletes it once", async () => {
    const made = await json(create({ input: "mine" }));
    const other = h.auth.tokens.create("other").token;
    for (const path of [`/v1/responses/${made.id}`, `/v1/responses/${made.id}/input_items`]) {
      expect((await h.call(path, { auth: other })).status).toBe(404);
    }
    expect((await h.call(`/v1/responses/${made.id}`, { method: "DELETE", auth: other })).status).toBe(404);
    expect((await h.call(`/v1/responses/${made.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await h.call(`/v1/responses/${made.id}`, { method: "DELETE" })).status).toBe(404);
  });

  test("the OpenAPI document has the routes, their request schema and the stream's events", async () => {
    const document = await json(h.call("/swagger/json", { auth: false }));
    const post = document.paths["/v1/responses"].post;
    expect(Object.keys(post.requestBody.content["application/json"].schema.properties)).toEqual(expect.arrayContaining(["input", "previous_response_id", "tools", "store"]));
    expect(post.responses["200"].content["text/event-stream"].schema).toBeDefined();
    expect(document.paths["/v1/responses/{id}"].get).toBeDefined();
    expect(document.paths["/v1/responses/{id}"].delete).toBeDefined();
    expect(document.paths["/v1/responses/{id}/input_items"].get.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(["limit", "order", "after", "before"]),
    );
  });
});
