import { describe, expect, test } from "bun:test";
import { isPrxError } from "../../src/core/errors.ts";
import { MEMORY_MAX_CATEGORY_BYTES, MEMORY_MAX_SESSION_ID_BYTES } from "../../src/memory/limits.ts";
import { validateStore } from "../../src/memory/validate.ts";

/** The error code validateStore throws, or null when it accepts. */
function refusal(body: () => void): string | null {
  try {
    body();
    return null;
  } catch (error) {
    return isPrxError(error) ? error.code : "not a PrxError";
  }
}

// "é" is two bytes in UTF-8: the limits count bytes, not characters
const bytes = (n: number) => "é".repeat(Math.floor(n / 2)) + "a".repeat(n % 2);

describe("memory store limits, at the boundary (bytes of UTF-8)", () => {
  test("a category of MEMORY_MAX_CATEGORY_BYTES passes, one byte more is refused naming the limit", () => {
    expect(refusal(() => validateStore("k", "content", bytes(MEMORY_MAX_CATEGORY_BYTES)))).toBeNull();
    expect(refusal(() => validateStore("k", "content", bytes(MEMORY_MAX_CATEGORY_BYTES + 1)))).toBe("LIMIT_EXCEEDED");
    expect(() => validateStore("k", "content", bytes(MEMORY_MAX_CATEGORY_BYTES + 1))).toThrow(
      `memory category is ${MEMORY_MAX_CATEGORY_BYTES + 1} bytes, the limit is ${MEMORY_MAX_CATEGORY_BYTES} bytes`,
    );
  });

  test("a session id of MEMORY_MAX_SESSION_ID_BYTES passes, one byte more is refused", () => {
    expect(refusal(() => validateStore("k", "content", "core", bytes(MEMORY_MAX_SESSION_ID_BYTES)))).toBeNull();
    expect(refusal(() => validateStore("k", "content", "core", bytes(MEMORY_MAX_SESSION_ID_BYTES + 1)))).toBe("LIMIT_EXCEEDED");
  });
});
