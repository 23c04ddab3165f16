import { describe, expect, test } from "bun:test";
import { isPrxError, type PrxError } from "../../src/core/errors.ts";
import { MAX_JSON_DEPTH } from "../../src/core/json/index.ts";
import { importInto, requireCatalog } from "../../src/memory/manage.ts";
import { NoneMemory } from "../../src/memory/none.ts";
import {
  decodeImport,
  MEMORY_IMPORT_MAX_BYTES,
  MEMORY_IMPORT_MAX_ENTRIES,
  MEMORY_IMPORT_REPORTED_ERRORS,
  parseMemoryImport,
} from "../../src/memory/transfer.ts";
import type { MemoryBackend, MemoryEntry, MemoryRecord } from "../../src/memory/types.ts";
import { corpusNotes, NOTES_PATH } from "../helpers/recall-corpus.ts";

function failure(run: () => unknown): PrxError {
  try {
    run();
  } catch (error) {
    if (isPrxError(error)) return error;
    throw error;
  }
  throw new Error("expected a PrxError");
}

/** One valid line padded to exactly `bytes` bytes (without its newline). */
function lineOf(key: string, bytes: number): string {
  const bare = JSON.stringify({ key, content: "" });
  return JSON.stringify({ key, content: "x".repeat(bytes - bare.length) });
}

describe("memory import parsing", () => {
  test("the recall corpus fixture is a valid import; defaults fill category, private, session and times", async () => {
    const records = parseMemoryImport(await Bun.file(NOTES_PATH).text(), "2026-01-01T00:00:00.000Z");
    expect(records).toHaveLength(corpusNotes().length);
    const minimal = parseMemoryImport('{"key":"k","content":"c"}\n\n', "2026-01-01T00:00:00.000Z");
    expect(minimal).toEqual([
      {
        key: "k",
        content: "c",
        category: "core",
        private: false,
        session_id: null,
        created_at: "2026-01-01T00:00:00.000Z",
        updated_at: "2026-01-01T00:00:00.000Z",
      },
    ]);
  });

  test(`an import of exactly MEMORY_IMPORT_MAX_BYTES parses; one byte more is refused`, () => {
    const lines = 300;
    const per = Math.floor(MEMORY_IMPORT_MAX_BYTES / lines);
    const body = Array.from({ length: lines - 1 }, (_, i) => lineOf(`k${i}`, per - 1)); // + "\n" each
    body.push(lineOf("last", MEMORY_IMPORT_MAX_BYTES - (lines - 1) * per));
    const text = body.join("\n");
    expect(new TextEncoder().encode(text).byteLength).toBe(MEMORY_IMPORT_MAX_BYTES);
    expect(parseMemoryImport(text)).toHaveLength(lines);
    const past = failure(() => parseMemoryImport(text + " "));
    expect([past.code, past.status]).toEqual(["LIMIT_EXCEEDED", 413]);
    expect(failure(() => decodeImport(new Uint8Array(MEMORY_IMPORT_MAX_BYTES + 1))).code).toBe("LIMIT_EXCEEDED");
  });

  test(`MEMORY_IMPORT_MAX_ENTRIES entries parse; one more is refused`, () => {
    const lines = Array.from({ length: MEMORY_IMPORT_MAX_ENTRIES }, (_, i) => `{"key":"k${i}","content":""}`);
    expect(parseMemoryImport(lines.join("\n"))).toHaveLength(MEMORY_IMPORT_MAX_ENTRIES);
    lines.push('{"key":"more","content":""}');
    expect(failure(() => parseMemoryImport(lines.join("\n"))).message).toContain(
      `${MEMORY_IMPORT_MAX_ENTRIES + 1} entries is over the limit of ${MEMORY_IMPORT_MAX_ENTRIES}`,
    );
  });

  test(`the error names the first ${MEMORY_IMPORT_REPORTED_ERRORS} bad lines and counts the rest; limits are the store's`, () => {
    const bad = Array.from({ length: MEMORY_IMPORT_REPORTED_ERRORS + 2 }, () => "[]").join("\n");
    const error = failure(() => parseMemoryImport(bad));
    expect(error.message).toContain(`line ${MEMORY_IMPORT_REPORTED_ERRORS}:`);
    expect(error.message).not.toContain(`line ${MEMORY_IMPORT_REPORTED_ERRORS + 1}:`);
    expect(error.message).toEndWith("and 2 more bad lines");
    expect(failure(() => parseMemoryImport(JSON.stringify({ key: "k".repeat(257), content: "" }))).message).toContain(
      "key is over 256 bytes",
    );
    expect(failure(() => parseMemoryImport('{"key":"k","content":"c","updated_at":"yesterday"}')).message).toContain(
      "line 1: updated_at",
    );
    expect(failure(() => decodeImport(new Uint8Array([0xff, 0xfe]))).message).toContain("not valid UTF-8");
  });

  test(`a line nested deeper than MAX_JSON_DEPTH = ${MAX_JSON_DEPTH} is a bad line naming the limit`, () => {
    const good = '{"key":"k","content":"c"}';
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    const error = failure(() => parseMemoryImport(`${good}\n${deep}`));
    expect(error.message).toContain(`line 2: entry: JSON nesting deeper than ${MAX_JSON_DEPTH} levels`);
  });
});

describe("memory management on backends without a catalog", () => {
  const entries = new Map<string, MemoryEntry>();
  /** A backend like a wasm: one: store/get/recall, no listing (a plain object, not a mock of the unit tested). */
  const listless: MemoryBackend = {
    name: "wasm:listless",
    async store(key, content, category) {
      if (content === "boom") throw new Error("guest trapped");
      entries.set(key, { id: key, key, content, category, timestamp: "t" });
    },
    recall: async () => [],
    get: async (key) => entries.get(key) ?? null,
    forget: async (key) => entries.delete(key),
    count: async () => entries.size,
    health: async () => true,
  };
  const record = (key: string, content: string): MemoryRecord => ({
    key,
    content,
    category: "core",
    private: false,
    session_id: null,
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-01T00:00:00.000Z",
  });

  test("listing and export answer 501 with a hint", () => {
    const error = failure(() => requireCatalog(listless, "list its entries"));
    expect([error.code, error.status]).toEqual(["MEMORY", 501]);
    expect(error.hint).toContain("search");
  });

  test("import stores entry by entry and, on a failure, says how many were stored before it", async () => {
    await importInto(listless, [record("a", "1")]);
    expect(await importInto(listless, [record("a", "2"), record("b", "3")])).toEqual({ created: 1, replaced: 1 });
    let caught: unknown;
    await importInto(listless, [record("c", "4"), record("d", "boom"), record("e", "5")]).catch((e) => (caught = e));
    expect(isPrxError(caught, "MEMORY")).toBe(true);
    expect((caught as PrxError).message).toContain("stopped at entry 2 (d): guest trapped");
    expect((caught as PrxError).hint).toContain("the 1 entries before it were stored");
    expect([...entries.keys()]).toEqual(["a", "b", "c"]);
  });

  test('memory.backend = "none" refuses an import instead of keeping nothing', async () => {
    let caught: unknown;
    await importInto(new NoneMemory(), [record("a", "1")]).catch((e) => (caught = e));
    expect((caught as PrxError).message).toContain('"none"');
  });
});
