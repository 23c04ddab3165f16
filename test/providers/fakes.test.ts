import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startStandaloneFake } from "../bench/announce.ts";
import { answerDelayMs, parseFakeArgs } from "../fakes/common.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/index.ts";

let fake: FakeServer;
beforeAll(() => {
  fake = startFakeOpenAI({ apiKey: "sk-fake" });
});
afterAll(() => fake.stop());

const client = () => new OpenAI({ apiKey: "sk-fake", baseURL: fake.url, maxRetries: 0 });

describe("the fake OpenAI server speaks the real format (official openai client)", () => {
  test("non-streaming", async () => {
    const completion = await client().chat.completions.create({
      model: "gpt-fake",
      messages: [{ role: "user", content: "hello sdk" }],
    });
    expect(completion.object).toBe("chat.completion");
    expect(completion.id).toStartWith("chatcmpl-");
    expect(completion.choices[0]!.message.content).toBe("echo: hello sdk");
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect(completion.usage!.total_tokens).toBeGreaterThan(0);
  });

  test("streaming with include_usage: text chunks, then a usage chunk with empty choices", async () => {
    const stream = await client().chat.completions.create({
      model: "gpt-fake",
      messages: [{ role: "user", content: "stream via sdk" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let usageChunks = 0;
    for await (const chunk of stream) {
      expect(chunk.object).toBe("chat.completion.chunk");
      text += chunk.choices[0]?.delta.content ?? "";
      if (chunk.usage) {
        usageChunks++;
        expect(chunk.choices).toEqual([]);
      }
    }
    expect(text).toBe("echo: stream via sdk");
    expect(usageChunks).toBe(1);
  });

  test("streamed tool calls assemble in the SDK's stream helper", async () => {
    const runner = client().chat.completions.stream({
      model: "gpt-fake",
      messages: [{ role: "user", content: 'use tool lookup {"q":"bun"}' }],
      tools: [{ type: "function", function: { name: "lookup", parameters: { type: "object" } } }],
    });
    const final = await runner.finalChatCompletion();
    const call = final.choices[0]!.message.tool_calls![0]!;
    expect(call.type).toBe("function");
    if (call.type !== "function") throw new Error("unreachable");
    expect(call.function.name).toBe("lookup");
    expect(JSON.parse(call.function.arguments)).toEqual({ q: "bun" });
    expect(final.choices[0]!.finish_reason).toBe("tool_calls");
  });

  test("errors carry the real error shape", async () => {
    fake.enqueue({ type: "error", status: 429, retryAfter: 1 });
    const error = await client()
      .chat.completions.create({ model: "gpt-fake", messages: [{ role: "user", content: "x" }] })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.status).toBe(429);
    expect(error.code).toBe("rate_limit_exceeded");
    const bad = await new OpenAI({ apiKey: "wrong", baseURL: fake.url, maxRetries: 0 }).models.list().catch((e) => e);
    expect(bad).toBeInstanceOf(OpenAI.AuthenticationError);
  });
});

describe("standalone fake process", () => {
  test("prints its URL first and serves until terminated", async () => {
    const child = Bun.spawn(["bun", "test/fakes/openai-server.ts", "--port", "0", "--latency-ms", "1"], {
      cwd: `${import.meta.dir}/../..`,
      stdout: "pipe",
      stderr: "inherit",
    });
    try {
      const reader = child.stdout.getReader();
      let out = "";
      while (!out.includes("\n")) {
        const chunk = await reader.read();
        if (chunk.done) break;
        out += new TextDecoder().decode(chunk.value);
      }
      reader.releaseLock();
      const url = out.split("\n")[0]!;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      const response = await fetch(`${url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "standalone" }] }),
      });
      expect(((await response.json()) as any).choices[0].message.content).toBe("echo: standalone");
    } finally {
      child.kill("SIGTERM");
      expect(await child.exited).toBe(0);
    }
  });
});

describe("standalone fake control over stdin (the benchmarks' fake in its own process)", () => {
  test("`handled` reports the fake's own time per last-message text since the previous call; `last-body` the last body", async () => {
    const standalone = await startStandaloneFake(5);
    try {
      expect(await standalone.lastBody()).toBeNull();
      const ask = (text: string) =>
        fetch(`${standalone.url}/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "m", messages: [{ role: "user", content: text }] }),
        }).then((response) => response.json());
      await Promise.all([ask("first"), ask("second")]);
      const handled = await standalone.handled();
      expect([...handled.keys()].sort()).toEqual(["first", "second"]);
      for (const ms of handled.values()) expect(ms).toBeGreaterThanOrEqual(4); // the 5 ms delay, timer rounding aside
      expect((await standalone.handled()).size).toBe(0); // forgotten once reported
      expect(await standalone.lastBody()).toMatchObject({
        messages: [{ content: expect.stringMatching(/first|second/) }],
      });
      await ask("third");
      expect([...(await standalone.handled()).keys()]).toEqual(["third"]);
      expect(await standalone.lastBody()).toMatchObject({ messages: [{ role: "user", content: "third" }] });
    } finally {
      await standalone.stop();
    }
  });
});

describe("fake latency", () => {
  test("latencyJitterMs spreads each answer's delay uniformly around latencyMs, never below 0", () => {
    const delays = Array.from({ length: 2000 }, () => answerDelayMs({ latencyMs: 20, latencyJitterMs: 4 }));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(18);
    expect(Math.max(...delays)).toBeLessThanOrEqual(22);
    expect(new Set(delays.map((d) => Math.floor(d))).size).toBe(4); // 18, 19, 20, 21: spread over the ticks
    expect(answerDelayMs({ latencyMs: 20 })).toBe(20);
    expect(answerDelayMs({ latencyMs: 1, latencyJitterMs: 10 })).toBeGreaterThanOrEqual(0);
    expect(parseFakeArgs(["--latency-ms", "20", "--latency-jitter-ms", "4"])).toEqual({
      latencyMs: 20,
      latencyJitterMs: 4,
    });
  });
});
