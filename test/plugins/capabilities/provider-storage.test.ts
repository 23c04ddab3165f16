import { describe, expect, test } from "bun:test";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isPrxError } from "../../../src/core/errors.ts";
import { startFakeOpenAI } from "../../fakes/index.ts";
import { captureLogs, failure, fakeConfig, openHost, PLUGINS2_DIR, workspaceWith } from "./helpers.ts";

describe("wasm: providers", () => {
  test("default_provider = wasm:<name> answers, and keeps answering across a reload mid-conversation", async () => {
    captureLogs();
    const ws = workspaceWith(["provider-wat"], 'default_provider = "wasm:wat-echo"\ndefault_model = "m1"\n');
    const opened = await openHost(ws.root);
    try {
      const first = await opened.host.runTurn({ sessionId: "c", channel: "test", text: "one" });
      expect(first.text).toBe("wat-echo says: one");
      expect(first.provider).toBe("wasm:wat-echo");
      const runtime = opened.services.runtime;
      const old = runtime.current();
      // A reload while a turn is being answered: the turn finishes on its generation, the next uses the new one.
      const [second, generation] = await Promise.all([
        opened.host.runTurn({ sessionId: "c", channel: "test", text: "two" }),
        runtime.reload("provider-wat"),
      ]);
      expect(second.text).toBe("wat-echo says: two");
      expect(generation).toBe(old.number + 1);
      await runtime.settled();
      expect(old.isReleased).toBe(true);
      const third = await opened.host.runTurn({ sessionId: "c", channel: "test", text: "three" });
      expect(third.text).toBe("wat-echo says: three");
      expect((await opened.host.sessions.messages("c")).map((m) => m.content)).toEqual([
        "one",
        "wat-echo says: one",
        "two",
        "wat-echo says: two",
        "three",
        "wat-echo says: three",
      ]);
      const counters = runtime.status.get("provider-wat", "provider", "wat-echo")!;
      expect(counters.invocations).toBeGreaterThanOrEqual(5); // name() per generation + 3 chats
      expect(counters.lastEvent?.name).toBe("chat m1");
    } finally {
      await opened.host.close();
      ws.cleanup();
    }
  });

  test("an unknown wasm: name fails at start with the available ones listed", async () => {
    captureLogs();
    const ws = workspaceWith(["provider-wat"], 'default_provider = "wasm:nope"\n');
    try {
      const error = await failure(openHost(ws.root));
      expect(isPrxError(error, "PROVIDER_UNKNOWN")).toBe(true);
      expect(error.message).toContain('"wasm:nope"');
      expect(error.hint).toContain("wasm:wat-echo");
    } finally {
      ws.cleanup();
    }
  });

  test("a plugin provider can never shadow a built-in: `openai` stays the configured one, the plugin is wasm:openai", async () => {
    captureLogs();
    const fake = startFakeOpenAI();
    const ws = workspaceWith([], fakeConfig(fake.url).replaceAll("fake", "openai"));
    cpSync(join(PLUGINS2_DIR, "provider-wat"), join(ws.pluginsDir, "shadow"), { recursive: true });
    const manifest = join(ws.pluginsDir, "shadow", "plugin.toml");
    writeFileSync(
      manifest,
      readFileSync(manifest, "utf8")
        .replace('name = "provider-wat"', 'name = "shadow"')
        .replace('name = "wat-echo"', 'name = "openai"'),
    );
    const opened = await openHost(ws.root);
    try {
      expect((await opened.host.runTurn({ sessionId: "x", channel: "t", text: "hi" })).text).toBe("echo: hi");
      expect(
        (await opened.host.runTurn({ sessionId: "y", channel: "t", text: "hi", provider: "wasm:openai" })).text,
      ).toBe("wat-echo says: hi");
    } finally {
      await opened.host.close();
      await fake.stop();
      ws.cleanup();
    }
  });
});

describe("wasm: storage", () => {
  test('memory.backend = "wasm:ts-kv" stores and recalls (store, recall, get by key, auto-recall into the prompt, forget, count)', async () => {
    captureLogs();
    const fake = startFakeOpenAI();
    const ws = workspaceWith(["storage-ts"], fakeConfig(fake.url, '[memory]\nbackend = "wasm:ts-kv"\n'));
    const opened = await openHost(ws.root);
    try {
      const memory = opened.host.memory;
      expect(memory.name).toBe("wasm:ts-kv");
      expect(await memory.health()).toBe(true);
      await memory.store("color", "favourite colour is teal", "prefs");
      await memory.store("pet", "has a cat named Miso", "facts", "s1");
      expect(await memory.count()).toBe(2);
      const hits = await memory.recall("cat", 5);
      expect(hits.map((h) => h.key)).toEqual(["pet"]);
      expect((await memory.get("color"))?.content).toBe("favourite colour is teal");
      expect(await memory.get("missing")).toBeNull();
      // auto_recall puts the stored memory into the prompt the provider sees.
      await opened.host.runTurn({ sessionId: "s1", channel: "test", text: "what about my cat?" });
      expect(JSON.stringify(fake.chatRequests().at(-1)!.body)).toContain("has a cat named Miso");
      expect(await memory.forget("pet")).toBe(true);
      expect(await memory.count()).toBe(1);
      const counters = opened.services.runtime.status.get("storage-ts", "storage", "ts-kv")!;
      expect(counters.invocations).toBeGreaterThanOrEqual(8);
      expect(counters.errors).toBe(0);
    } finally {
      await opened.host.close();
      await fake.stop();
      ws.cleanup();
    }
  });

  test("limits of the built-in backends apply before the guest is called; unknown names list the available", async () => {
    captureLogs();
    const ws = workspaceWith(["storage-ts"], '[memory]\nbackend = "wasm:ts-kv"\n');
    const opened = await openHost(ws.root);
    try {
      expect(isPrxError(await failure(opened.host.memory.store("", "x", "c")), "MEMORY")).toBe(true);
      expect(isPrxError(await failure(opened.host.memory.recall("x", 0)), "MEMORY")).toBe(true);
    } finally {
      await opened.host.close();
    }
    writeFileSync(join(ws.root, "config.toml"), '[memory]\nbackend = "wasm:other"\n');
    const error = await failure(openHost(ws.root));
    expect(isPrxError(error, "MEMORY")).toBe(true);
    expect(error.hint).toContain("wasm:ts-kv");
    ws.cleanup();
  });
});
