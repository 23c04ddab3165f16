/**
 * HTTP providers are resolved at start but load their implementation with their first call (DeferredHttpProvider):
 * through the resolver they answer as the real ones, and what needs no network (a missing key, whether they embed)
 * they answer before loading anything.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ConfigSchema } from "../../src/config/schema.ts";
import { DeferredHttpProvider } from "../../src/providers/deferred-http.ts";
import { createProviderResolver } from "../../src/providers/resolver.ts";
import { fakeEmbedding, startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";

let fake: FakeServer;
beforeAll(() => void (fake = startFakeOpenAI()));
afterAll(() => fake.stop());

describe("DeferredHttpProvider", () => {
  test("a missing key is a configuration problem found without a call", () => {
    const provider = new DeferredHttpProvider("anthropic", { name: "claude", baseUrl: "http://127.0.0.1:9", keyEnv: "PRX_TEST_UNSET_KEY", env: {} });
    expect(provider.configProblem()?.code).toBe("CONFIG_INVALID");
    expect(provider.configProblem()?.message).toContain("PRX_TEST_UNSET_KEY");
    const keyed = new DeferredHttpProvider("anthropic", { name: "claude", baseUrl: "http://127.0.0.1:9", keyEnv: "K", env: { K: "k" } });
    expect(keyed.configProblem()).toBeNull();
  });

  test("it embeds exactly when an OpenAI-compatible provider has an embedding model", () => {
    const options = { name: "p", baseUrl: fake.url, embeddingModel: "e" };
    expect(new DeferredHttpProvider("openai-compatible", options).embed).toBeDefined();
    expect(new DeferredHttpProvider("openai-compatible", { name: "p", baseUrl: fake.url }).embed).toBeUndefined();
    expect(new DeferredHttpProvider("anthropic", options).embed).toBeUndefined();
  });

  test("through the resolver: chat, model list and embeddings from the real provider", async () => {
    const config = ConfigSchema.parse({ providers: { local: { base_url: fake.url, embedding_model: "e", models: ["m1"] } } });
    const provider = createProviderResolver(config, { env: {} }).resolve("local");
    expect(await provider.chat({ model: "m1", messages: [{ role: "user", content: "hi" }] })).toMatchObject({ provider: "local" });
    expect(await provider.listModels!()).toEqual(["m1"]);
    expect((await provider.embed!({ input: ["apples"] })).embeddings).toEqual([fakeEmbedding("apples")]);
  });
});
