import { describe, expect, test } from "bun:test";
import type { Envelopes } from "../../../src/contracts/envelopes.ts";
import { PrxError } from "../../../src/core/errors.ts";
import {
  blockInError,
  boundBlockReason,
  EMPTY_BLOCK_REASON,
  MAX_BLOCK_REASON_BYTES,
  readReply,
} from "../../../src/plugins/middleware/index.ts";
import { StepFailure } from "../../../src/plugins/middleware/reply.ts";

const outbound: Envelopes["outbound"] = { text: "hello", channel: "cli", session_id: "s" };
const input = { envelope: outbound, json: JSON.stringify(outbound) };
const bytes = (text: string) => new TextEncoder().encode(text).length;

function failureOf(fn: () => unknown): StepFailure {
  try {
    fn();
  } catch (error) {
    if (error instanceof StepFailure) return error;
    throw error;
  }
  throw new Error("expected a StepFailure");
}

describe("readReply", () => {
  test("an unchanged bare envelope is the input itself", () => {
    expect(readReply("outbound", input.json, input)).toEqual({ next: input });
    expect(readReply("outbound", input.json, input).next).toBe(input);
  });

  test("a changed bare envelope is validated and carries its own text", () => {
    const reply = JSON.stringify({ ...outbound, text: "changed" });
    expect(readReply("outbound", reply, input)).toEqual({ next: { envelope: { ...outbound, text: "changed" }, json: reply } });
  });

  test("continue with the received JSON is the input itself (no envelope parse)", () => {
    const read = readReply("outbound", JSON.stringify({ action: "continue", data: input.json }), input);
    expect(read.next).toBe(input);
  });

  test("continue with other data goes on with it", () => {
    const data = JSON.stringify({ ...outbound, text: "via continue" });
    const read = readReply("outbound", JSON.stringify({ action: "continue", data }), input);
    expect(read.next).toEqual({ envelope: { ...outbound, text: "via continue" }, json: data });
  });

  test("continue with data that is not JSON, or not an envelope of the stage, fails", () => {
    const notJson = failureOf(() => readReply("outbound", JSON.stringify({ action: "continue", data: "{nope" }), input));
    expect(notJson.kind).toBe("invalid_json");
    expect(notJson.message).toStartWith("continue data is not JSON");
    const wrong = failureOf(() =>
      readReply("outbound", JSON.stringify({ action: "continue", data: JSON.stringify({ text: 1 }) }), input),
    );
    expect(wrong.kind).toBe("invalid_envelope");
    expect(wrong.message).toContain("continue data is not a valid outbound envelope at text");
  });

  test("an action reply of the wrong shape fails naming both shapes", () => {
    for (const reply of [{ action: "stop" }, { action: "continue", data: { text: "x" } }, { action: "block" }]) {
      const failure = failureOf(() => readReply("outbound", JSON.stringify(reply), input));
      expect(failure.kind).toBe("invalid_envelope");
      expect(failure.message).toContain('{"action":"block","reason":"..."}');
    }
  });

  test("block yields the reason", () => {
    expect(readReply("outbound", JSON.stringify({ action: "block", reason: "slow down" }), input)).toEqual({
      block: "slow down",
    });
  });

  test("a reply that is not a string or not JSON fails as before", () => {
    expect(failureOf(() => readReply("outbound", 42, input)).kind).toBe("invalid_json");
    expect(failureOf(() => readReply("outbound", "not json", input)).kind).toBe("invalid_json");
  });
});

describe("boundBlockReason", () => {
  test(`a reason of exactly MAX_BLOCK_REASON_BYTES (${MAX_BLOCK_REASON_BYTES}) UTF-8 bytes stays whole`, () => {
    const ascii = "a".repeat(MAX_BLOCK_REASON_BYTES);
    expect(boundBlockReason(ascii)).toBe(ascii);
    const wide = "é".repeat(MAX_BLOCK_REASON_BYTES / 2); // 2 bytes each
    expect(boundBlockReason(wide)).toBe(wide);
  });

  test("one byte past is cut on a character boundary to at most the limit, ending in an ellipsis", () => {
    const ascii = boundBlockReason("a".repeat(MAX_BLOCK_REASON_BYTES + 1));
    expect(ascii).toBe(`${"a".repeat(MAX_BLOCK_REASON_BYTES - 3)}…`);
    expect(bytes(ascii)).toBe(MAX_BLOCK_REASON_BYTES);
    const euros = Math.floor(MAX_BLOCK_REASON_BYTES / 3) - 1; // 3 bytes each
    const over = "b".repeat(MAX_BLOCK_REASON_BYTES + 1 - 3 * euros) + "€".repeat(euros);
    expect(bytes(over)).toBe(MAX_BLOCK_REASON_BYTES + 1);
    const wide = boundBlockReason(over);
    expect(bytes(wide)).toBeLessThanOrEqual(MAX_BLOCK_REASON_BYTES);
    expect(wide).toEndWith("€…");
    expect(wide).not.toContain("\uFFFD");
  });

  test("an empty or blank reason becomes a default text", () => {
    expect(boundBlockReason("")).toBe(EMPTY_BLOCK_REASON);
    expect(boundBlockReason(" \n")).toBe(EMPTY_BLOCK_REASON);
  });
});

describe("blockInError", () => {
  test("an error whose message is exactly a block reply is a block", () => {
    const reply = JSON.stringify({ action: "block", reason: "rate limited" });
    expect(blockInError(new PrxError("PLUGIN_ERROR", reply))).toBe("rate limited");
    expect(blockInError(new Error(` ${reply}\n`))).toBe("rate limited");
    expect(blockInError(reply)).toBe("rate limited");
  });

  test("anything else is not", () => {
    expect(blockInError(new Error("rate limited"))).toBeNull();
    expect(blockInError(new Error("{broken"))).toBeNull();
    expect(blockInError(new Error(JSON.stringify({ action: "continue", data: "{}" })))).toBeNull();
    expect(blockInError(new Error(`prefix ${JSON.stringify({ action: "block", reason: "x" })}`))).toBeNull();
    expect(blockInError({ action: "block", reason: "not an error" })).toBeNull();
  });
});
