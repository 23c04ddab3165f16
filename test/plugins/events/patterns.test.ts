import { describe, expect, test } from "bun:test";
import {
  bridgeEventName,
  compilePatterns,
  EVENT_TOPIC_MAX_BYTES,
  HookEventPatternsSchema,
  matchTopic,
  validatePattern,
} from "../../../src/plugins/events/index.ts";
import { isPrxError } from "../../../src/core/errors.ts";

describe("pattern matching", () => {
  const table: [pattern: string, topic: string, expected: boolean][] = [
    ["prx.cron.backup", "prx.cron.backup", true],
    ["prx.cron.backup", "prx.cron.backup2", false],
    ["prx.cron.backup", "prx.cron", false],
    ["prx.lifecycle.*", "prx.lifecycle.agent_stop", true],
    ["prx.lifecycle.*", "prx.lifecycle.", true],
    ["prx.lifecycle.*", "prx.lifecycle", false],
    ["prx.lifecycle.*", "prx.cron.x", false],
    ["prx.*", "prx.lifecycle.llm_request", true],
    ["*", "anything.at.all", true],
    ["*", "x", true],
    ["agent_end", "prx.lifecycle.agent_stop", true],
    ["agent_end", "prx.lifecycle.agent_end", false],
    ["agent_end", "agent_end", true],
    ["agent_stop", "prx.lifecycle.agent_stop", true],
    ["llm_request", "prx.lifecycle.llm_request", true],
    ["llm_request", "prx.lifecycle.llm_response", false],
    ["tool_call", "prx.lifecycle.tool_call", true],
    ["tool_call", "prx.lifecycle.tool_call_start", false],
    ["error", "prx.lifecycle.error", true],
    ["custom_event", "prx.lifecycle.custom_event", false],
    ["Agent_End", "prx.lifecycle.agent_stop", false],
  ];
  for (const [pattern, topic, expected] of table) {
    test(`${pattern} ${expected ? "matches" : "does not match"} ${topic}`, () => {
      expect(matchTopic(pattern, topic)).toBe(expected);
    });
  }

  test("compilePatterns matches when any pattern does", () => {
    const m = compilePatterns(["agent_end", "prx.cron.*"]);
    expect(m("prx.lifecycle.agent_stop")).toBe(true);
    expect(m("prx.cron.a")).toBe(true);
    expect(m("prx.lifecycle.agent_start")).toBe(false);
  });

  test("a star that is not last is rejected", () => {
    for (const bad of ["prx.*.x", "**", "*x"]) {
      try {
        validatePattern(bad);
        throw new Error("accepted " + bad);
      } catch (error) {
        expect(isPrxError(error, "BAD_REQUEST")).toBe(true);
      }
    }
  });

  test("pattern length is bounded like topics", () => {
    expect(() => validatePattern("a".repeat(EVENT_TOPIC_MAX_BYTES))).not.toThrow();
    expect(() => validatePattern("a".repeat(EVENT_TOPIC_MAX_BYTES + 1))).toThrow(/256 bytes/);
    expect(() => validatePattern("")).toThrow(/1\.\.256/);
  });
});

describe("lifecycle bridge", () => {
  test("native names become prx.lifecycle topics; agent_end is agent_stop", () => {
    expect(bridgeEventName("agent_end")).toBe("prx.lifecycle.agent_stop");
    expect(bridgeEventName("agent_stop")).toBe("prx.lifecycle.agent_stop");
    expect(bridgeEventName("agent_start")).toBe("prx.lifecycle.agent_start");
    expect(bridgeEventName("llm_response")).toBe("prx.lifecycle.llm_response");
    expect(bridgeEventName("turn_complete")).toBe("prx.lifecycle.turn_complete");
    expect(bridgeEventName("prx.cron.x")).toBe("prx.cron.x");
    expect(bridgeEventName("prx.lifecycle.error")).toBe("prx.lifecycle.error");
  });
});

describe("hook manifest event patterns", () => {
  test("string array, table form and a mix parse to patterns", () => {
    expect(HookEventPatternsSchema.parse(["agent_end", "prx.cron.*"])).toEqual(["agent_end", "prx.cron.*"]);
    expect(HookEventPatternsSchema.parse([{ pattern: "prx.lifecycle.*" }, { pattern: "*" }])).toEqual([
      "prx.lifecycle.*",
      "*",
    ]);
    expect(HookEventPatternsSchema.parse(["a", { pattern: "b" }])).toEqual(["a", "b"]);
  });

  test("bad patterns and unknown table keys are rejected with their index", () => {
    const bad = HookEventPatternsSchema.safeParse(["ok", "x.*.y"]);
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual([1]);
    expect(HookEventPatternsSchema.safeParse([{ pattern: "a", extra: 1 }]).success).toBe(false);
    expect(HookEventPatternsSchema.safeParse([""]).success).toBe(false);
  });
});
