import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ConfigSchema, type Config } from "../../src/config/schema.ts";
import { PrxError } from "../../src/core/errors.ts";
import { setLogSink } from "../../src/core/logger.ts";
import { createProviderResolver } from "../../src/providers/resolver.ts";
import { resolveModelChoice } from "../../src/providers/routes.ts";
import type { Provider } from "../../src/providers/types.ts";
import { startFakeAnthropic, startFakeOpenAI, type FakeServer } from "../fakes/index.ts";

let openai: FakeServer;
let anthropic: FakeServer;
const logged: string[] = [];
beforeAll(() => {
  setLogSink((line) => void logged.push(line));
  openai = startFakeOpenAI();
  anthropic = startFakeAnthropic();
});
afterAll(async () => {
  setLogSink((line) => void process.stderr.write(line + "\n"));
  await openai.stop();
  await anthropic.stop();
});

const config = (value: unknown): Config => ConfigSchema.parse(value);
const user = (content: string) => [{ role: "user" as const, content }];

function thrown(run: () => unknown): PrxError {
  try {
    run();
  } catch (error) {
    if (error instanceof PrxError) return error;
    throw error;
  }
  throw new Error("expected a PrxError");
}

describe("createProviderResolver", () => {
  test("a fresh config resolves the built-in offline provider", async () => {
    const resolver = createProviderResolver(config({}));
    expect(resolver.names()).toEqual(["offline"]);
    const result = await resolver.resolve("offline").chat({ model: "offline", messages: user("hi") });
    expect(result.provider).toBe("offline");
  });

  test("configured providers of each kind talk to their servers", async () => {
    const resolver = createProviderResolver(
      config({
        providers: {
          local: { base_url: openai.url, models: ["fake-model"] },
          claude: { kind: "anthropic", base_url: anthropic.url, api_key_env: "ANT" },
          mock: { kind: "offline" },
        },
      }),
      { env: { ANT: "k" } },
    );
    expect(resolver.names()).toEqual(["offline", "local", "claude", "mock"]);
    expect((await resolver.resolve("local").chat({ model: "fake-model", messages: user("a") })).text).toBe("echo: a");
    expect((await resolver.resolve("claude").chat({ model: "c", messages: user("b") })).text).toBe("echo: b");
    expect((await resolver.resolve("mock").chat({ model: "offline", messages: user("c") })).provider).toBe("mock");
    expect(await resolver.resolve("local").listModels!()).toEqual(["fake-model"]);
  });

  test("custom:<url> is an openai-compatible provider at that URL", async () => {
    const resolver = createProviderResolver(config({}));
    const provider = resolver.resolve(`custom:${openai.url}`);
    expect(provider.name).toBe(`custom:${openai.url}`);
    expect((await provider.chat({ model: "m", messages: user("custom") })).text).toBe("echo: custom");
    expect(thrown(() => resolver.resolve("custom:ftp://x")).code).toBe("PROVIDER_UNKNOWN");
  });

  test("wasm: and remote: names go to external; unknown ones are errors", async () => {
    const asked: string[] = [];
    const echo: Provider = {
      name: "wasm:echo",
      chat: async (request) => ({ text: "plugin", toolCalls: [], model: request.model, provider: "wasm:echo" }),
    };
    const resolver = createProviderResolver(config({}), {
      external: (name) => {
        asked.push(name);
        return name === "wasm:echo" ? echo : undefined;
      },
    });
    expect((await resolver.resolve("wasm:echo").chat({ model: "m", messages: user("x") })).text).toBe("plugin");
    expect(thrown(() => resolver.resolve("remote:nope")).message).toContain("remote:nope");
    expect(thrown(() => resolver.resolve("nowhere")).code).toBe("PROVIDER_UNKNOWN");
    // a built-in provider needs no table of its own
    expect(resolver.resolve("openai").name).toBe("openai");
    expect(asked).toEqual(["wasm:echo", "remote:nope"]);
  });

  test("a plugin cannot shadow a built-in: unprefixed names never reach external", async () => {
    const resolver = createProviderResolver(config({}), {
      external: () => {
        throw new Error("must not be asked");
      },
    });
    const result = await resolver.resolve("offline").chat({ model: "offline", messages: user("x") });
    expect(result.provider).toBe("offline");
  });

  test("unknown provider names the available ones", () => {
    const resolver = createProviderResolver(config({ providers: { local: { base_url: openai.url } } }));
    const error = thrown(() => resolver.resolve("nope"));
    expect(error.code).toBe("PROVIDER_UNKNOWN");
    expect(error.hint).toContain("offline, local");
    expect(thrown(() => resolver.resolve("constructor")).code).toBe("PROVIDER_UNKNOWN");
  });

  test("presets: a bare [providers.openai] needs its key variable", async () => {
    const resolver = createProviderResolver(config({ providers: { openai: {} } }), { env: {} });
    const error = await resolver.resolve("openai").chat({ model: "m", messages: user("x") }).catch((e) => e);
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.message).toContain("OPENAI_API_KEY");
    const noUrl = createProviderResolver(config({ providers: { x: {} } }));
    expect(thrown(() => noUrl.resolve("x")).code).toBe("CONFIG_INVALID");
  });

  test("resolve() applies [reliability]: retries then fallbacks", async () => {
    const resolver = createProviderResolver(
      config({
        providers: { primary: { base_url: openai.url }, backup: { base_url: anthropic.url, kind: "anthropic" } },
        reliability: { retries: 1, backoff_ms: 1, max_backoff_ms: 1, fallback_providers: ["backup"] },
      }),
      { reliability: { sleep: async () => {} } },
    );
    openai.reset();
    openai.enqueue({ type: "error", status: 500 }, { type: "error", status: 500 });
    const result = await resolver.resolve("primary").chat({ model: "m", messages: user("fell back") });
    expect(result).toMatchObject({ provider: "backup", text: "echo: fell back" });
    expect(openai.chatRequests()).toHaveLength(2);
    expect(logged.some((line) => line.includes("primary: HTTP 500"))).toBe(true);
    openai.reset();
    const broken = createProviderResolver(config({ reliability: { fallback_providers: ["ghost"] } }));
    expect(thrown(() => broken.resolve("offline")).message).toContain("fallback_providers");
  });
});

describe("resolveModelChoice", () => {
  const routed = config({
    default_provider: "openai",
    providers: { openai: { models: ["gpt-a", "gpt-b"] }, claude: { kind: "anthropic", models: [] } },
    model_routes: [{ hint: "fast", provider: "claude", model: "claude-haiku" }],
  });

  test("defaults", () => {
    expect(resolveModelChoice(config({}))).toEqual({ provider: "offline", model: "offline" });
    expect(resolveModelChoice(routed)).toEqual({ provider: "openai", model: "gpt-a" });
    const pinned = config({ ...routed, default_model: "gpt-b" });
    expect(resolveModelChoice(pinned)).toEqual({ provider: "openai", model: "gpt-b" });
  });

  test("explicit provider and model", () => {
    expect(resolveModelChoice(routed, { model: "gpt-z" })).toEqual({ provider: "openai", model: "gpt-z" });
    expect(resolveModelChoice(routed, { provider: "offline" })).toEqual({ provider: "offline", model: "offline" });
    const explicit = { provider: "claude", model: "c-1" };
    expect(resolveModelChoice(routed, explicit)).toEqual(explicit);
    expect(thrown(() => resolveModelChoice(routed, { provider: "claude" })).message).toContain("claude");
  });

  test("hint routes", () => {
    expect(resolveModelChoice(routed, { model: "hint:fast" })).toEqual({ provider: "claude", model: "claude-haiku" });
    expect(resolveModelChoice(config({ ...routed, default_model: "hint:fast" }))).toEqual({
      provider: "claude",
      model: "claude-haiku",
    });
    const error = thrown(() => resolveModelChoice(routed, { model: "hint:slow" }));
    expect(error.code).toBe("USAGE");
    expect(error.hint).toContain("hint:fast");
  });
});
