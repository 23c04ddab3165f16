import { expect, test } from "bun:test";
import { constantTimeEqual } from "../../src/core/constant-time.ts";

test("constantTimeEqual: equal strings only; a difference anywhere or in length is unequal", () => {
  expect(constantTimeEqual("a1b2c3", "a1b2c3")).toBe(true);
  expect(constantTimeEqual("", "")).toBe(true);
  expect(constantTimeEqual("a1b2c3", "a1b2c4")).toBe(false);
  expect(constantTimeEqual("x1b2c3", "a1b2c3")).toBe(false);
  expect(constantTimeEqual("a1b2c3", "a1b2c")).toBe(false);
  expect(constantTimeEqual("secret", "")).toBe(false);
});
