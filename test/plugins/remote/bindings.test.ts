import { openSqliteStorage } from "../../../src/storage/index.ts";
import { afterEach, describe, expect, test } from "bun:test";
import {
  createRemoteHostBindings,
  REMOTE_MEMORY_MAX_BYTES,
  REMOTE_SETTINGS_MAX_PER_PLUGIN,
  REMOTE_SETTING_MAX_KEY_BYTES,
  REMOTE_SETTING_MAX_VALUE_BYTES,
} from "../../../src/plugins/remote/index.ts";
import { isPrxError, type PrxError } from "../../../src/core/errors.ts";
import { OpenAICompatibleProvider } from "../../../src/providers/openai-compatible.ts";
import { fakeEmbedding, startFakeOpenAI } from "../../fakes/openai-server.ts";
import { REMOTE_EMBEDDING_MAX_TEXTS } from "../../../src/plugins/remote/limits.ts";
import { hostFixture } from "./helpers.ts";

let fixture: ReturnType<typeof hostFixture>;
afterEach(() => fixture?.close());

describe("default host bindings", () => {
  test("setting keys and values at the limit pass, one byte past fails", () => {
    fixture = hostFixture();
    const b = fixture.bindings;
    b.setSetting("p", "k".repeat(REMOTE_SETTING_MAX_KEY_BYTES), 1);
    expect(() => b.setSetting("p", "k".repeat(REMOTE_SETTING_MAX_KEY_BYTES + 1), 1)).toThrow("exceeds");
    const overhead = JSON.stringify("").length;
    b.setSetting("p", "v", "x".repeat(REMOTE_SETTING_MAX_VALUE_BYTES - overhead));
    expect(() => b.setSetting("p", "v", "x".repeat(REMOTE_SETTING_MAX_VALUE_BYTES - overhead + 1))).toThrow("exceeds");
  });

  test(`a plugin may keep ${REMOTE_SETTINGS_MAX_PER_PLUGIN} settings; one more fails, updates still work`, () => {
    fixture = hostFixture();
    const b = fixture.bindings;
    for (let i = 0; i < REMOTE_SETTINGS_MAX_PER_PLUGIN; i++) b.setSetting("p", `k${i}`, i);
    expect(() => b.setSetting("p", "one-more", 1)).toThrow("already has");
    b.setSetting("p", "k0", "updated");
    expect(b.getSetting("p", "k0")).toBe("updated");
    b.setSetting("other", "one-more", 1);
    expect(b.getSetting("p", "one-more")).toBeUndefined();
  });

  test("settings survive a new bindings instance on the same database", () => {
    const storage = openSqliteStorage(":memory:");
    const make = () =>
      createRemoteHostBindings({
        store: storage.remotePlugins,
        pluginKv: storage.pluginKv,
        memory: () => null,
        providers: {
          resolve: () => {
            throw new Error("unused");
          },
          names: () => [],
        },
        events: { publish() {} },
        model: { provider: "x", model: "y" },
      });
    make().setSetting("p", "a", [1, 2]);
    expect(make().getSetting("p", "a")).toEqual([1, 2]);
    void storage.close();
  });

  test("memories are scoped per plugin and work without a memory backend", async () => {
    fixture = hostFixture();
    const b = fixture.bindings;
    const id = await b.createMemory("a", { content: { text: "only a" } }, null);
    expect(await b.getMemory("b", id)).toBeNull();
    expect((await b.getMemory("a", id))?.content.text).toBe("only a");
    const storage = openSqliteStorage(":memory:");
    const bare = createRemoteHostBindings({
      store: storage.remotePlugins,
      pluginKv: storage.pluginKv,
      memory: () => null,
      providers: {
        resolve: () => {
          throw new Error("unused");
        },
        names: () => [],
      },
      events: { publish() {} },
      model: { provider: "x", model: "y" },
    });
    const id2 = await bare.createMemory("a", { id: "fixed", content: { text: "t" } }, "notes");
    expect(id2).toBe("fixed");
    expect(await bare.updateMemory("a", { id: "fixed", content: { text: "u" } })).toBe(true);
    expect((await bare.getMemory("a", "fixed"))?.content.text).toBe("u");
    void storage.close();
  });

  test("a memory at the size limit is stored; past it is refused", async () => {
    fixture = hostFixture();
    const b = fixture.bindings;
    const base = { id: "m", content: { text: "" }, createdAt: 1 };
    const pad = REMOTE_MEMORY_MAX_BYTES - JSON.stringify(base).length;
    const ok = { ...base, content: { text: "" }, extra: "e".repeat(pad - ',"extra":""'.length) };
    expect(await b.createMemory("p", ok as never, null)).toBe("m");
    const over = { ...ok, extra: ok.extra + "e" };
    expect(String(await b.createMemory("p", over as never, null).catch((e) => e))).toContain("exceeds");
  });

  test("useModel(TEXT_EMBEDDING) is the configured provider's embedding of params.text, or of each of params.texts", async () => {
    const fake = startFakeOpenAI();
    const storage = openSqliteStorage(":memory:");
    try {
      const make = (embeddingModel?: string) =>
        createRemoteHostBindings({
          store: storage.remotePlugins,
          pluginKv: storage.pluginKv,
          memory: () => null,
          providers: {
            resolve: () =>
              new OpenAICompatibleProvider({ name: "fake", baseUrl: fake.url, ...(embeddingModel ? { embeddingModel } : {}) }),
            names: () => ["fake"],
          },
          events: { publish() {} },
          model: { provider: "fake", model: "fake-model" },
        });
      expect(await make("text-embedding-3-small").useModel("p", "TEXT_EMBEDDING", { text: "hello" })).toEqual(
        fakeEmbedding("hello"),
      );
      // the batch form ({ texts }) is one request, one vector per text, up to REMOTE_EMBEDDING_MAX_TEXTS
      const before = fake.requests.length;
      expect(await make("text-embedding-3-small").useModel("p", "TEXT_EMBEDDING", { texts: ["red apples", "blue sky"] })).toEqual([
        fakeEmbedding("red apples"),
        fakeEmbedding("blue sky"),
      ]);
      expect(fake.requests.length - before).toBe(1);
      const texts = (n: number) => ({ texts: Array.from({ length: n }, (_, i) => `text ${i}`) });
      expect(await make("e").useModel("p", "TEXT_EMBEDDING", texts(REMOTE_EMBEDDING_MAX_TEXTS))).toHaveLength(REMOTE_EMBEDDING_MAX_TEXTS);
      const tooMany = await make("e").useModel("p", "TEXT_EMBEDDING", texts(REMOTE_EMBEDDING_MAX_TEXTS + 1)).catch((e: Error) => e);
      expect(isPrxError(tooMany, "LIMIT_EXCEEDED")).toBe(true);
      const missing = await make("m").useModel("p", "TEXT_EMBEDDING", {}).catch((e: Error) => e);
      expect(String(missing)).toContain("params.text");
      expect(isPrxError(await make("m").useModel("p", "TEXT_EMBEDDING", { texts: ["a", ""] }).catch((e: Error) => e), "BAD_REQUEST")).toBe(true);
      const none = await make().useModel("p", "TEXT_EMBEDDING", { text: "x" }).catch((e: Error) => e);
      expect(isPrxError(none, "PLUGIN_UNSUPPORTED")).toBe(true);
      expect((none as PrxError).hint).toContain("embedding_model in [providers.fake]");
    } finally {
      void storage.close();
      await fake.stop();
    }
  });

  test("useModel builds the chat from system, messages and prompt", async () => {
    fixture = hostFixture();
    const text = await fixture.bindings.useModel("p", "TEXT_LARGE", {
      system: "sys",
      messages: [
        { role: "user", content: "earlier" },
        { role: "bogus", content: "dropped" },
      ],
      prompt: "now",
      temperature: 0.2,
      maxTokens: 5,
    });
    expect(text).toBe("echo: now");
    const request = fixture.provider.requests[0]!;
    expect(request.messages.map((m) => m.content)).toEqual(["sys", "earlier", "now"]);
    expect([request.temperature, request.maxTokens, request.model]).toEqual([0.2, 5, "echo-1"]);
    expect(String(await fixture.bindings.useModel("p", "TEXT_SMALL", {}).catch((e) => e))).toContain("params.prompt");
  });
});
