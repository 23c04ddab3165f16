/**
 * The offline provider says what actually happened: the setup hint fits the workspace (no `prx init` once a
 * config.toml exists), and as a fallback it names the provider that failed, why, and how to fix it.
 */
import { describe, expect, test } from "bun:test";
import { ConfigSchema } from "../../src/config/schema.ts";
import { createProviderResolver } from "../../src/providers/resolver.ts";
import { OfflineProvider } from "../../src/providers/offline.ts";
import type { ChatMessage } from "../../src/providers/types.ts";

const user = (content: string): ChatMessage => ({ role: "user", content });

describe("the offline provider's own words", () => {
  test("with no config.toml it suggests `prx init`; with one it names the file and never says `prx init`", async () => {
    const fresh = await new OfflineProvider().chat({ model: "offline", messages: [user("hi")] });
    expect(fresh.text).toContain("run `prx init`");
    const initialised = new OfflineProvider("offline", { configPath: "/home/me/.prx/config.toml" });
    const reply = await initialised.chat({ model: "offline", messages: [user("hi")] });
    expect(reply.text).not.toContain("prx init");
    expect(reply.text).toContain("add a provider to /home/me/.prx/config.toml");
    expect(reply.text).toContain("`prx doctor`");
  });

  test("a provider of kind offline introduces itself by its name", async () => {
    const named = new OfflineProvider("local", { configPath: "/w/config.toml" });
    expect((await named.chat({ model: "m", messages: [user("hi")] })).text).toContain('I am "local", an offline provider');
  });

  test("as a fallback it names each failed provider, why and the fix, on every turn", async () => {
    const offline = new OfflineProvider("offline", { configPath: "/w/config.toml" });
    const failedProviders = [{ provider: "openai", message: "openai: HTTP 401 from https://x/v1", hint: "check the key in $OPENAI_API_KEY" }];
    const later = [user("a"), { role: "assistant" as const, content: "b" }, user("c")];
    for (const messages of [[user("a")], later]) {
      const reply = await offline.chat({ model: "offline", messages, failedProviders });
      expect(reply.text).toContain("listed in [reliability] fallback_providers");
      expect(reply.text).toContain('- provider "openai" failed: openai: HTTP 401 from https://x/v1');
      expect(reply.text).toContain("fix: check the key in $OPENAI_API_KEY");
      expect(reply.text).not.toContain("prx init");
    }
  });

  test("the resolver's chain tells the offline fallback what failed (a key variable that is not set)", async () => {
    const config = ConfigSchema.parse({
      default_provider: "openai",
      default_model: "gpt-4o-mini",
      providers: { openai: { base_url: "http://127.0.0.1:9/v1", api_key_env: "PRX_TEST_NO_SUCH_KEY" } },
      reliability: { retries: 0, fallback_providers: ["offline"] },
    });
    const provider = createProviderResolver(config, { env: {}, configPath: "/w/config.toml" }).resolve("openai");
    expect(provider.configProblem?.()).toMatchObject({ code: "CONFIG_INVALID", status: 503 });
    expect(provider.chain?.map((p) => p.name)).toEqual(["openai", "offline"]);
    const reply = await provider.chat({ model: "gpt-4o-mini", messages: [user("hello")] });
    expect(reply.provider).toBe("offline");
    expect(reply.text).toContain('provider "openai" failed: openai: environment variable PRX_TEST_NO_SUCH_KEY is not set');
    expect(reply.text).toContain("fix: export PRX_TEST_NO_SUCH_KEY=<your key>");
    const withKey = createProviderResolver(config, { env: { PRX_TEST_NO_SUCH_KEY: "k" } }).resolve("openai");
    expect(withKey.configProblem?.()).toBeNull();
  });
});
