import { describe, expect, test } from "bun:test";
import type { z } from "zod";
import {
  ChatCompletionRequestSchema,
  isPlainChatCompletionRequest,
} from "../../src/gateway/openai/schemas.ts";
import { MESSAGE_MAX_CHARS, OPENAI_MAX_MESSAGES } from "../../src/gateway/limits.ts";
import { isPlainChatResponse, OpenAIChatResponseSchema } from "../../src/providers/openai-wire.ts";
import {
  InboundEnvelopeSchema,
  isPlainInbound,
  isPlainLlmResponse,
  isPlainOutbound,
  LlmResponseEnvelopeSchema,
  OutboundEnvelopeSchema,
} from "../../src/contracts/envelope-schemas.ts";
import { FromWorkerSchema, isPlainCallResult } from "../../src/plugins/wasm/protocol.ts";
import {
  isPlainHostRpc,
  isPlainHostRpcResult,
  isPlainWorkerRpc,
  isPlainWorkerRpcResult,
  WorkerToHostParser,
} from "../../src/plugins/remote/protocol-fast.ts";
import {
  HostRpcMessageSchema,
  HostRpcResultMessageSchema,
  WorkerRpcMessageSchema,
  WorkerRpcResultMessageSchema,
  WorkerToHostMessageSchema,
} from "../../src/plugins/remote/protocol.ts";

/** Values tried in every field: valid and invalid for one schema or another. */
const PROBES: unknown[] = [undefined, null, "", "x", 0, -1, 1, 1.5, 2, 2.5, 3, 2 ** 53, true, [], [{}], {}, { a: 1 }];

/** Every variant of `base` with one field (at `path`) replaced by each probe, plus the field removed. */
function variants(base: unknown, paths: string[][]): unknown[] {
  const out: unknown[] = [base];
  for (const path of paths) {
    for (const probe of [...PROBES, "__delete__"]) {
      const copy = structuredClone(base) as Record<string, unknown>;
      let at: Record<string, unknown> = copy;
      for (const key of path.slice(0, -1)) at = at[key] as Record<string, unknown>;
      if (probe === "__delete__") delete at[path.at(-1)!];
      else at[path.at(-1)!] = probe;
      out.push(copy);
    }
  }
  return out;
}

/** The fast check only accepts what the schema accepts, and agrees on the fields prx reads. */
function agree<S extends z.ZodType>(
  schema: S,
  accepts: (v: unknown) => boolean,
  corpus: unknown[],
  read: (v: z.output<S>) => unknown,
): { fast: number; total: number } {
  let fast = 0;
  for (const value of corpus) {
    const parsed = schema.safeParse(value);
    if (!accepts(value)) continue;
    fast++;
    if (!parsed.success) throw new Error(`fast check accepted what the schema refuses: ${JSON.stringify(value)}`);
    expect(read(value as z.output<S>)).toEqual(read(parsed.data));
  }
  return { fast, total: corpus.length };
}

describe("withFastAccept checks agree with their zod schemas", () => {
  test("OpenAI chat completion request (gateway)", () => {
    const base = {
      model: "m",
      messages: [
        { role: "system", content: "s" },
        { role: "user", content: "hi", name: "ann" },
      ],
      stream: false,
      temperature: 1,
      max_tokens: 5,
      user: "u",
      extra: { kept: true },
    };
    const paths = [
      ["model"],
      ["messages"],
      ["stream"],
      ["stream_options"],
      ["temperature"],
      ["max_tokens"],
      ["user"],
      ["tools"],
      ["tool_choice"],
      ["functions"],
      ["function_call"],
      ...["role", "content", "name", "tool_calls", "tool_call_id"].map((k) => ["messages", "1", k]),
    ];
    const corpus = [
      ...variants(base, paths),
      { ...base, messages: [{ role: "user", content: "x".repeat(MESSAGE_MAX_CHARS) }] },
      { ...base, messages: [{ role: "user", content: "x".repeat(MESSAGE_MAX_CHARS + 1) }] },
      { ...base, messages: Array.from({ length: OPENAI_MAX_MESSAGES }, () => ({ role: "user", content: "a" })) },
      { ...base, messages: Array.from({ length: OPENAI_MAX_MESSAGES + 1 }, () => ({ role: "user", content: "a" })) },
      { ...base, temperature: 2 },
      { ...base, temperature: 2.0001 },
      { ...base, tools: [{ type: "function", function: { name: "t" } }] },
      { ...base, tool_choice: "required" },
    ];
    const schema = ChatCompletionRequestSchema();
    const { fast, total } = agree(schema, isPlainChatCompletionRequest, corpus, (v) => v);
    expect(isPlainChatCompletionRequest(base)).toBe(true);
    expect(fast).toBeGreaterThan(20);
    expect(fast).toBeLessThan(total);
  });

  test("OpenAI chat completion response (provider)", () => {
    // As api.openai.com answers (https://platform.openai.com/docs/api-reference/chat/object).
    const base = {
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1741570283,
      model: "gpt-4o-2024-08-06",
      system_fingerprint: "fp_1",
      service_tier: "default",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: "hello", refusal: null, annotations: [] },
          logprobs: null,
          finish_reason: "stop",
        },
      ],
      usage: {
        prompt_tokens: 9,
        completion_tokens: 2,
        total_tokens: 11,
        prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      },
    };
    const paths = [
      ["id"],
      ["object"],
      ["created"],
      ["model"],
      ["choices"],
      ["usage"],
      ["usage", "prompt_tokens"],
      ["usage", "completion_tokens"],
      ["usage", "total_tokens"],
      ["choices", "0", "index"],
      ["choices", "0", "finish_reason"],
      ["choices", "0", "message"],
      ...["role", "content", "tool_calls"].map((k) => ["choices", "0", "message", k]),
    ];
    const read = (v: z.output<typeof OpenAIChatResponseSchema>) => ({
      model: v.model,
      text: v.choices[0]!.message.content,
      tools: v.choices[0]!.message.tool_calls,
      finish: v.choices[0]!.finish_reason,
      usage: v.usage && [v.usage.prompt_tokens, v.usage.completion_tokens, v.usage.total_tokens],
    });
    const { fast, total } = agree(OpenAIChatResponseSchema, isPlainChatResponse, variants(base, paths), read);
    expect(isPlainChatResponse(base)).toBe(true);
    expect(fast).toBeGreaterThan(20);
    expect(fast).toBeLessThan(total);
  });

  describe("remote plugin protocol (every call)", () => {
    const check = <S extends z.ZodType>(schema: S, accepts: (v: unknown) => boolean, base: object, keys: string[]) => {
      const corpus = variants(base, keys.map((k) => [k]));
      const { fast, total } = agree(schema, accepts, corpus, (v) => v);
      expect(accepts(base)).toBe(true);
      expect(fast).toBeGreaterThan(keys.length);
      expect(fast).toBeLessThan(total);
    };
    const id = ["type", "requestId"];

    test("worker-rpc", () => {
      const target = "service:ECHO.echo";
      const base = { type: "worker-rpc", requestId: 7, surface: "service", target, args: { a: 1 } };
      check(WorkerRpcMessageSchema, isPlainWorkerRpc, base, [...id, "surface", "target", "args"]);
      expect(isPlainWorkerRpc({ ...base, surface: "nope" })).toBe(false);
    });

    test("worker-rpc-result and host-rpc-result", () => {
      const base = { type: "worker-rpc-result", requestId: 7, ok: true, payload: [1, "x"] };
      check(WorkerRpcResultMessageSchema, isPlainWorkerRpcResult, base, [...id, "ok", "payload", "error"]);
      check(HostRpcResultMessageSchema, isPlainHostRpcResult, { ...base, type: "host-rpc-result" }, [
        ...id,
        "ok",
        "payload",
        "error",
      ]);
      // errors always go through zod, which checks their shape
      expect(isPlainWorkerRpcResult({ ...base, ok: false, error: { name: "E", message: "m" } })).toBe(false);
    });

    test("host-rpc", () => {
      const base = { type: "host-rpc", requestId: 3, api: "runtime", method: "getSetting", args: { key: "k" } };
      check(HostRpcMessageSchema, isPlainHostRpc, base, [...id, "api", "method", "args"]);
    });

    test("the worker -> host union takes the fast path for results and host-rpc only", () => {
      const result = { type: "worker-rpc-result", requestId: 1, ok: true, payload: null };
      const log = { type: "log", level: "info", message: "hi" };
      const bad = { type: "worker-rpc-result", requestId: -1, ok: true };
      for (const value of [result, log, bad, { type: "host-rpc", requestId: 2, api: "runtime", method: "m" }]) {
        expect(WorkerToHostParser.safeParse(value).success).toBe(WorkerToHostMessageSchema.safeParse(value).success);
      }
      expect(WorkerToHostParser.safeParse(result)).toEqual({ success: true, data: result } as never);
      expect(WorkerToHostParser.safeParse(bad).error?.issues[0]?.path).toEqual(["requestId"]);
    });
  });

  describe("middleware envelopes (every middleware reply that changes the envelope)", () => {
    type Accepts = (v: unknown) => boolean;
    const exact = <S extends z.ZodType>(schema: S, accepts: Accepts, base: object, paths: string[][]) => {
      const corpus = [...variants(base, paths), { ...base, extra: 1 }];
      // zod strips unknown keys: the check must refuse them so both give the same envelope
      const { fast, total } = agree(schema, accepts, corpus, (v) => v);
      expect(accepts(base)).toBe(true);
      expect(accepts({ ...base, extra: 1 })).toBe(false);
      expect(fast).toBeGreaterThan(paths.length);
      expect(fast).toBeLessThan(total);
    };

    test("inbound", () => {
      const base = { text: "hi", channel: "cli", user_id: null, session_id: "s", metadata: { a: 1 } };
      exact(InboundEnvelopeSchema, isPlainInbound, base, [
        ["text"],
        ["channel"],
        ["user_id"],
        ["session_id"],
        ["metadata"],
        ["metadata", "a"],
      ]);
    });

    test("llm_response", () => {
      const base = {
        text: "t",
        tool_calls: [{ id: "c1", name: "echo", arguments: "{}" }],
        model: "m",
        usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
      };
      exact(LlmResponseEnvelopeSchema, isPlainLlmResponse, base, [
        ["text"],
        ["model"],
        ["tool_calls"],
        ["usage"],
        ...["id", "name", "arguments"].map((k) => ["tool_calls", "0", k]),
        ...["prompt_tokens", "completion_tokens", "total_tokens"].map((k) => ["usage", k]),
      ]);
      expect(isPlainLlmResponse({ ...base, usage: null, tool_calls: [] })).toBe(true);
    });

    test("outbound", () => {
      const base = { text: "t", channel: "cli", session_id: "s" };
      exact(OutboundEnvelopeSchema, isPlainOutbound, base, [["text"], ["channel"], ["session_id"]]);
    });
  });

  test("WASM sandbox call results", () => {
    const base = { type: "result", id: 4, ok: true, value: "{}", execUs: 12.5 };
    const corpus = variants(base, [["type"], ["id"], ["ok"], ["value"], ["execUs"], ["error"]]);
    const { fast, total } = agree(FromWorkerSchema, isPlainCallResult, corpus, (v) => v);
    expect(isPlainCallResult(base)).toBe(true);
    expect(fast).toBeGreaterThan(6);
    expect(fast).toBeLessThan(total);
  });
});
