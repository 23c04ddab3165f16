import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStorage } from "../../src/storage/index.ts";
import { PrxError } from "../../src/core/errors.ts";
import { createMemoryBackend, NoneMemory, type MemoryBackend } from "../../src/memory/index.ts";

const dir = mkdtempSync(join(tmpdir(), "prx-memory-"));
const path = join(dir, "prx.db");
const storage = openSqliteStorage(path);

afterAll(() => {
  void storage.close();
  rmSync(dir, { recursive: true, force: true });
});

function thrown(body: () => unknown): PrxError {
  try {
    body();
  } catch (error) {
    expect(error).toBeInstanceOf(PrxError);
    return error as PrxError;
  }
  throw new Error("expected a throw");
}

describe("none backend", () => {
  test("stores nothing, recalls nothing, is healthy", async () => {
    const none = new NoneMemory();
    await none.store("k", "v", "core");
    expect(await none.recall("v", 5)).toEqual([]);
    expect(await none.get("k")).toBeNull();
    expect(await none.forget("k")).toBe(false);
    expect(await none.count()).toBe(0);
    expect(await none.health()).toBe(true);
  });
});

describe("createMemoryBackend", () => {
  test("sqlite and none", async () => {
    const sqlite = createMemoryBackend("sqlite", storage);
    expect(sqlite.name).toBe("sqlite");
    await sqlite.store("k", "value", "core");
    expect(await sqlite.count()).toBe(1);
    expect(createMemoryBackend("none", storage).name).toBe("none");
  });

  test("wasm:<name> is delegated to the external resolver", () => {
    const fake: MemoryBackend = new NoneMemory();
    const asked: string[] = [];
    const resolved = createMemoryBackend("wasm:kv", storage, (name) => {
      asked.push(name);
      return name === "kv" ? fake : undefined;
    });
    expect(resolved).toBe(fake);
    expect(asked).toEqual(["kv"]);
  });

  test("a missing wasm backend is a MEMORY error listing what exists", () => {
    const resolver = Object.assign(() => undefined, { names: () => ["kv"] });
    const error = thrown(() => createMemoryBackend("wasm:nope", storage, resolver));
    expect(error.code).toBe("MEMORY");
    expect(error.message).toContain("wasm:nope");
    expect(error.hint).toContain("sqlite, postgres, none, wasm:kv");
    expect(thrown(() => createMemoryBackend("wasm:nope", storage)).code).toBe("MEMORY");
  });

  test("an unknown name is a MEMORY error", () => {
    const error = thrown(() => createMemoryBackend("redis", storage));
    expect(error.code).toBe("MEMORY");
    expect(error.hint).toContain("sqlite");
  });
});
