import { describe, expect, test } from "bun:test";
import { MEMORY_MAX_CATEGORY_BYTES, MEMORY_MAX_SESSION_ID_BYTES } from "../../src/memory/limits.ts";
import { validateStore } from "../../src/memory/validate.ts";

// "é" is two bytes in UTF-8: the limits count bytes, not characters
const bytes = (n: number) => "é".repeat(Math.floor(n / 2)) + "a".repeat(n % 2);

describe("memory store limits, at the boundary (bytes of UTF-8)", () => {
  test("a category of MEMORY_MAX_CATEGORY_BYTES passes, one byte more is refused naming the limit", () => {
    expect(() => validateStore("k", "content", bytes(MEMORY_MAX_CATEGORY_BYTES))).not.toThrow();
    expect(() => validateStore("k", "content", bytes(MEMORY_MAX_CATEGORY_BYTES + 1))).toThrow(
      `memory category is ${MEMORY_MAX_CATEGORY_BYTES + 1} bytes, the limit is ${MEMORY_MAX_CATEGORY_BYTES} bytes`,
    );
  });

  test("a session id of MEMORY_MAX_SESSION_ID_BYTES passes, one byte more is refused", () => {
    expect(() => validateStore("k", "content", "core", bytes(MEMORY_MAX_SESSION_ID_BYTES))).not.toThrow();
    expect(() => validateStore("k", "content", "core", bytes(MEMORY_MAX_SESSION_ID_BYTES + 1))).toThrow(
      `memory session id is ${MEMORY_MAX_SESSION_ID_BYTES + 1} bytes, the limit is ${MEMORY_MAX_SESSION_ID_BYTES} bytes`,
    );
  });
});
