import { describe, expect, test } from "bun:test";
import { newId, sha256Hex } from "../../src/core/ids.ts";

describe("ids", () => {
  test("newId is the prefix and 20 lowercase hex digits, different every time", () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newId("tok")));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^tok_[0-9a-f]{20}$/);
    // every byte value renders as two digits (no dropped leading zeros)
    const digits = new Set([...ids].flatMap((id) => [...id.slice(4)]));
    expect(digits.size).toBe(16);
  });

  test("sha256Hex matches the known digest of 'abc'", () => {
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});
