import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStorage } from "../../src/storage/index.ts";
import { MEMORY_MAX_KEY_BYTES, MEMORY_MAX_RECALL_LIMIT, NoneMemory, SqliteMemory } from "../../src/memory/index.ts";
import type { MemoryBackend } from "../../src/memory/types.ts";
import { createBuiltinTools, ToolRegistry } from "../../src/tools/index.ts";
import { ToolsSchema, type ToolsConfig } from "../../src/config/schema.ts";
import type { ToolContext } from "../../src/tools/types.ts";

function toolsConfig(overrides: Partial<ToolsConfig> = {}): ToolsConfig {
  return ToolsSchema.parse(overrides);
}

function context(workspace = "/nonexistent", signal: AbortSignal = new AbortController().signal): ToolContext {
  return { sessionId: "test-session", workspace, signal };
}

const dir = mkdtempSync(join(tmpdir(), "prx-memtools-"));
const path = join(dir, "prx.db");
const storage = openSqliteStorage(path);
const sqlite = new SqliteMemory(() => storage.memory);
let backend: MemoryBackend = sqlite;

afterAll(() => {
  void storage.close();
  rmSync(dir, { recursive: true, force: true });
});

const registry = new ToolRegistry({
  builtins: createBuiltinTools({ config: toolsConfig(), workspace: dir, memory: () => backend }),
});
const call = (name: string, args: Record<string, unknown>) => registry.call(name, JSON.stringify(args), context(dir));

describe("built-in tool set", () => {
  test("offers every built-in that can run, each with an object JSON Schema", () => {
    const runnable = toolsConfig({
      shell_enabled: true,
      shell_allowlist: ["ls"],
      http_allowlist: ["https://x.test/"],
      web_search: { backend: "searxng", url: "http://127.0.0.1:8888", max_results: 5, timeout_ms: 10_000 },
    });
    const all = new ToolRegistry({ builtins: createBuiltinTools({ config: runnable, workspace: dir, memory: () => backend }) });
    const specs = all.specs();
    expect(specs.map((s) => s.name)).toEqual([
      "memory_store",
      "memory_recall",
      "memory_forget",
      "http_request",
      "file_read",
      "file_write",
      "file_edit",
      "web_fetch",
      "web_search",
      "shell",
    ]);
    for (const spec of specs) {
      expect(spec.parameters.type).toBe("object");
      expect(spec.parameters.$schema).toBeUndefined();
    }
    // The defaults leave shell off, http_request without an allowlist and web_search without a backend.
    expect(registry.names()).toEqual(["memory_store", "memory_recall", "memory_forget", "file_read", "file_write", "file_edit", "web_fetch"]);
  });
});

describe("memory tools", () => {
  test("store, recall and forget through the registry", async () => {
    const stored = await call("memory_store", { key: "tz", content: "The user lives in Lisbon", category: "profile" });
    expect(stored.success).toBe(true);
    const recalled = await call("memory_recall", { query: "where does the user live? Lisbon" });
    expect(recalled.output).toContain("tz [profile");
    expect(recalled.output).toContain("Lisbon");
    expect((await call("memory_forget", { key: "tz" })).output).toBe('forgot memory "tz"');
    expect((await call("memory_forget", { key: "tz" })).output).toContain("no memory");
    expect((await call("memory_recall", { query: "Lisbon" })).output).toBe("no memories matched");
  });

  test("memory_store and memory_forget refuse a key with NUL, naming the rule", async () => {
    for (const [name, args] of [
      ["memory_store", { key: "a\0b", content: "x" }],
      ["memory_forget", { key: "a\0b" }],
    ] as const) {
      const result = await call(name, args);
      expect(result.success).toBe(false);
      expect(result.error).toContain("a memory key may not contain the NUL character (U+0000)");
    }
  });

  test("session scope stores under the calling session", async () => {
    await call("memory_store", { key: "mood", content: "cheerful today", scope: "session" });
    expect((await sqlite.get("mood"))?.session_id).toBe("test-session");
    expect((await sqlite.recall("cheerful", 5, "other-session"))).toEqual([]);
  });

  test("limits surface as error results, not throws", async () => {
    const long = await call("memory_store", { key: "k".repeat(MEMORY_MAX_KEY_BYTES + 1), content: "x" });
    expect(long.success).toBe(false);
    expect(long.error).toContain(String(MEMORY_MAX_KEY_BYTES));
    expect((await call("memory_recall", { query: "x", limit: MEMORY_MAX_RECALL_LIMIT })).success).toBe(true);
    const past = await call("memory_recall", { query: "x", limit: MEMORY_MAX_RECALL_LIMIT + 1 });
    expect(past.success).toBe(false);
    expect(past.error).toContain("limit");
    expect((await call("memory_store", { key: "k" })).error).toContain("content");
  });

  test("the backend getter is read at call time", async () => {
    await call("memory_store", { key: "swap", content: "kept in sqlite" });
    backend = new NoneMemory();
    try {
      expect((await call("memory_recall", { query: "sqlite" })).output).toBe("no memories matched");
    } finally {
      backend = sqlite;
    }
    expect((await call("memory_recall", { query: "sqlite" })).output).toContain("swap");
  });
});
