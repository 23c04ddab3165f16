import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MAX_JSON_DEPTH } from "../../src/core/json/index.ts";
import {
  errorBodyExcerpt,
  httpError,
  joinUrl,
  PROVIDER_ERROR_EXCERPT_CHARS,
  ProviderCall,
} from "../../src/providers/http.ts";
import { OpenAICompatibleProvider } from "../../src/providers/openai-compatible.ts";
import { excerpt, SSE_LINE_EXCERPT_CHARS } from "../../src/providers/response-errors.ts";
import { PROVIDER_MAX_RESPONSE_BYTES } from "../../src/providers/sse.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/index.ts";

let fake: FakeServer;
beforeAll(() => {
  fake = startFakeOpenAI();
});
afterAll(() => fake.stop());

/** A valid chat completion body of exactly `size` bytes. */
function bodyOfSize(size: number): string {
  const head =
    '{"id":"chatcmpl-1","object":"chat.completion","model":"m",' +
    '"choices":[{"index":0,"message":{"role":"assistant","content":"';
  const tail = '"},"finish_reason":"stop"}]}';
  return head + "x".repeat(size - head.length - tail.length) + tail;
}

describe("response size cap (non-streaming, real constant)", () => {
  const provider = () => new OpenAICompatibleProvider({ name: "big", baseUrl: fake.url });
  const headers = { "content-type": "application/json" };

  test("exactly PROVIDER_MAX_RESPONSE_BYTES is accepted", async () => {
    fake.enqueue({ type: "raw", body: bodyOfSize(PROVIDER_MAX_RESPONSE_BYTES), headers });
    const result = await provider().chat({ model: "m", messages: [{ role: "user", content: "x" }] });
    expect(result.text.length).toBeGreaterThan(PROVIDER_MAX_RESPONSE_BYTES - 200);
  });

  test("one byte more is refused", async () => {
    fake.enqueue({ type: "raw", body: bodyOfSize(PROVIDER_MAX_RESPONSE_BYTES + 1), headers });
    const error = await provider()
      .chat({ model: "m", messages: [{ role: "user", content: "x" }] })
      .catch((e) => e);
    expect(error.code).toBe("PROVIDER_RESPONSE_TOO_LARGE");
    expect(error.message).toContain("big");
  });

  test("readText without a content-length: at the cap passes, past it fails", async () => {
    const call = new ProviderCall({ provider: "p" }, 1000);
    const stream = (n: number) => new Response(new Blob(["y".repeat(n)]).stream());
    expect(await call.readText(stream(10), "u", 10)).toBe("y".repeat(10));
    expect((await call.readText(stream(11), "u", 10).catch((e) => e)).code).toBe("PROVIDER_RESPONSE_TOO_LARGE");
    call.dispose();
  });
});

test("a compressed JSON answer is counted decoded: its small declared length does not let it past the cap", async () => {
  const json = JSON.stringify({ data: "z".repeat(4096) });
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => {
      const gz = Bun.gzipSync(json);
      return new Response(gz, { headers: { "content-type": "application/json", "content-encoding": "gzip", "content-length": String(gz.length) } });
    },
  });
  const call = new ProviderCall({ provider: "zip" }, 5_000);
  try {
    const url = `http://127.0.0.1:${server.port}/`;
    expect(await call.readJson(await fetch(url), url, json.length)).toEqual({ data: "z".repeat(4096) });
    const error = await call.readJson(await fetch(url), url, json.length - 1).then(() => null, (e: { code?: string }) => e);
    expect(error?.code).toBe("PROVIDER_RESPONSE_TOO_LARGE");
  } finally {
    call.dispose();
    server.stop(true);
  }
});

describe("a 200 answer that is not JSON", () => {
  const provider = () => new OpenAICompatibleProvider({ name: "odd", baseUrl: fake.url });
  const ask = () => provider().chat({ model: "m", messages: [{ role: "user", content: "x" }] }).catch((e) => e);

  test("declared JSON that does not parse names the parse error", async () => {
    fake.enqueue({ type: "raw", body: '{"choices": [', headers: { "content-type": "application/json" } });
    const error = await ask();
    expect(error.code).toBe("PROVIDER_PROTOCOL");
    expect(error.message).toContain("is not valid JSON");
  });

  test("a proxy's HTML page is quoted", async () => {
    fake.enqueue({ type: "raw", body: "<html>502 Bad Gateway</html>", headers: { "content-type": "text/html" } });
    const error = await ask();
    expect(error.code).toBe("PROVIDER_PROTOCOL");
    expect(error.message).toContain("<html>502 Bad Gateway</html>");
  });
});

describe(`an answer nested deeper than MAX_JSON_DEPTH = ${MAX_JSON_DEPTH}`, () => {
  const provider = () => new OpenAICompatibleProvider({ name: "deep", baseUrl: fake.url });
  const ask = () => provider().chat({ model: "m", messages: [{ role: "user", content: "x" }] }).catch((e) => e);
  /** A chat completion whose message carries an extra field making the body nest exactly `depth` levels. */
  const body = (depth: number) =>
    '{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant",' +
    `"content":"ok","x":${"[".repeat(depth - 4)}${"]".repeat(depth - 4)}},"finish_reason":"stop"}]}`;

  test("at the limit is read; one level more and 100,000 levels are a protocol error naming it", async () => {
    for (const headers of [{ "content-type": "application/json" }, { "content-type": "text/plain" }]) {
      fake.enqueue({ type: "raw", body: body(MAX_JSON_DEPTH), headers });
      expect((await provider().chat({ model: "m", messages: [{ role: "user", content: "x" }] })).text).toBe("ok");
      for (const depth of [MAX_JSON_DEPTH + 1, 100_000]) {
        fake.enqueue({ type: "raw", body: body(depth), headers });
        const error = await ask();
        expect(error.code).toBe("PROVIDER_PROTOCOL");
        expect(error.message).toContain(`JSON nesting deeper than ${MAX_JSON_DEPTH} levels`);
      }
    }
  });
});

describe("error formatting", () => {
  test("excerpts are bounded", () => {
    expect(excerpt("a".repeat(SSE_LINE_EXCERPT_CHARS))).toBe("a".repeat(SSE_LINE_EXCERPT_CHARS));
    expect(excerpt("a".repeat(SSE_LINE_EXCERPT_CHARS + 1))).toBe(`${"a".repeat(SSE_LINE_EXCERPT_CHARS)}...`);
    const long = "b".repeat(PROVIDER_ERROR_EXCERPT_CHARS + 1);
    expect(errorBodyExcerpt(long)).toHaveLength(PROVIDER_ERROR_EXCERPT_CHARS + 3);
    expect(errorBodyExcerpt("b".repeat(PROVIDER_ERROR_EXCERPT_CHARS))).toHaveLength(PROVIDER_ERROR_EXCERPT_CHARS);
  });

  test("the provider's own error message is quoted from OpenAI, Anthropic and plain bodies", () => {
    expect(errorBodyExcerpt('{"error":{"message":"bad key","type":"x"}}')).toBe("bad key");
    expect(errorBodyExcerpt('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')).toBe(
      "Overloaded",
    );
    expect(errorBodyExcerpt('{"error":"model not found"}')).toBe("model not found");
    expect(errorBodyExcerpt("<html>Bad Gateway</html>")).toBe("<html>Bad Gateway</html>");
  });

  test("httpError names provider, status, body and the fix", () => {
    const headers = new Headers({ "retry-after": "3" });
    const error = httpError({ provider: "groq", keyEnv: "GROQ_API_KEY" }, "http://h/v1/x", 429, "slow down", headers);
    expect(error.code).toBe("PROVIDER_HTTP");
    expect(error.message).toBe("groq: HTTP 429 from http://h/v1/x: slow down");
    expect(error.details).toEqual({ status: 429, retryAfterMs: 3000, provider: "groq" });
    expect(error.hint).toContain("fallback_providers");
    const groq = { provider: "groq", keyEnv: "GROQ_API_KEY" };
    expect(httpError(groq, "u", 401, "").hint).toBe("check the key in $GROQ_API_KEY");
    expect(httpError({ provider: "x" }, "u", 401, "").hint).toContain("api_key_env");
    expect(httpError({ provider: "x" }, "u", 404, "").hint).toContain("base_url");
  });

  test("joinUrl", () => {
    expect(joinUrl("http://h/v1/", "/chat/completions")).toBe("http://h/v1/chat/completions");
    expect(joinUrl("http://h/v1", "models")).toBe("http://h/v1/models");
  });
});
