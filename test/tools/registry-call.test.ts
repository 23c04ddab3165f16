/**
 * The registry's call path: a result the schema would change is passed on as the schema reads it, the turn's
 * signal gets one abort listener however many calls wait on it (none for a tool that answered at once), and a late
 * answer after an abort is ignored.
 */
import { describe, expect, test } from "bun:test";
import { MAX_JSON_DEPTH } from "../../src/core/json/index.ts";
import { TOOL_MAX_ARGUMENT_BYTES } from "../../src/tools/limits.ts";
import { parseArguments, ToolRegistry } from "../../src/tools/registry.ts";
import { ok } from "../../src/tools/result.ts";
import type { Tool, ToolContext } from "../../src/tools/types.ts";

function tool(name: string, run: Tool["execute"]): Tool {
  return { spec: { name, description: name, parameters: { type: "object" } }, execute: run };
}

/** A signal whose abort listeners are counted (the registry is the unit; the signal is its collaborator). */
function countedSignal(): { controller: AbortController; context: ToolContext; listeners: () => number } {
  const controller = new AbortController();
  const signal = controller.signal;
  let added = 0;
  const add = signal.addEventListener.bind(signal);
  signal.addEventListener = ((...args: Parameters<AbortSignal["addEventListener"]>) => {
    added++;
    add(...args);
  }) as AbortSignal["addEventListener"];
  return { controller, context: { sessionId: "s", workspace: "/nonexistent", signal }, listeners: () => added };
}

describe("tool results", () => {
  test("a result with an extra key is accepted through the schema, which drops the key", async () => {
    const registry = new ToolRegistry({ builtins: [tool("extra", async () => ({ success: true, output: "x", extra: 1 }) as never)] });
    const { context } = countedSignal();
    expect(await registry.call("extra", "{}", context)).toEqual({ success: true, output: "x" });
  });
});

describe("argument text", () => {
  test(`multi-byte arguments of ${TOOL_MAX_ARGUMENT_BYTES} UTF-8 bytes pass; one byte more fails; blank text is {}`, () => {
    const wrap = '{"a":""}';
    const fill = "é".repeat((TOOL_MAX_ARGUMENT_BYTES - wrap.length) / 2);
    const at = `{"a":"${fill}"}`;
    expect(Buffer.byteLength(at)).toBe(TOOL_MAX_ARGUMENT_BYTES);
    expect(parseArguments("t", at)).toEqual({ args: { a: fill } });
    expect(parseArguments("t", `{"a":"${fill}x"}`)).toEqual({ error: `arguments for tool t exceed ${TOOL_MAX_ARGUMENT_BYTES} bytes; send less data per call` });
    for (const blank of ["", " ", "\n\t", "\u00a0"]) expect(parseArguments("t", blank)).toEqual({ args: {} });
    expect(parseArguments("t", " {}")).toEqual({ args: {} });
  });

  test(`arguments nested ${MAX_JSON_DEPTH} levels pass; one level more fails naming the limit`, () => {
    const nested = (depth: number) => `{"a":${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}`;
    expect("args" in parseArguments("t", nested(MAX_JSON_DEPTH))).toBe(true);
    expect(parseArguments("t", nested(MAX_JSON_DEPTH + 1))).toEqual({
      error: expect.stringContaining(`arguments for tool t: JSON nesting deeper than ${MAX_JSON_DEPTH} levels`),
    });
  });
});

describe("the turn's signal", () => {
  test("a tool that answered at once gets no abort listener", async () => {
    const registry = new ToolRegistry({ builtins: [tool("now", async () => ok("done"))] });
    const { context, listeners } = countedSignal();
    for (let i = 0; i < 10; i++) expect((await registry.call("now", "{}", context)).output).toBe("done");
    expect(listeners()).toBe(0);
  });

  test("pending calls share one abort listener: an abort answers every one of them at once", async () => {
    const registry = new ToolRegistry({ builtins: [tool("hang", () => new Promise(() => {}))] });
    const { controller, context, listeners } = countedSignal();
    const calls = Array.from({ length: 50 }, () => registry.call("hang", "{}", context));
    expect(listeners()).toBe(1);
    controller.abort(new Error("user pressed stop"));
    const results = await Promise.all(calls);
    expect(results.every((r) => !r.success && r.error === "tool hang was aborted: user pressed stop")).toBe(true);
    expect(registry.counts()).toEqual({ hang: { calls: 50, errors: 50 } });
  });

  test("calls that finished before the abort keep their results; a late answer after an abort is ignored", async () => {
    let release!: (result: ReturnType<typeof ok>) => void;
    const registry = new ToolRegistry({
      builtins: [
        tool("slow", () => new Promise((resolve) => (release = resolve))),
        tool("tick", async () => {
          await Bun.sleep(0);
          return ok("tock");
        }),
      ],
    });
    const { controller, context, listeners } = countedSignal();
    const finished = await Promise.all(Array.from({ length: 20 }, () => registry.call("tick", "{}", context)));
    expect(finished.every((r) => r.output === "tock")).toBe(true);
    const slow = registry.call("slow", "{}", context);
    controller.abort("stop");
    release(ok("too late"));
    expect(await slow).toMatchObject({ success: false, error: "tool slow was aborted: stop" });
    expect(listeners()).toBe(1);
  });

  test("a tool that returns a plain value or a thenable (breaking its type) is read as await reads it", async () => {
    const registry = new ToolRegistry({
      builtins: [
        tool("plain", (() => ok("plain")) as unknown as Tool["execute"]),
        tool("thenable", (() => ({ then: (resolve: (r: unknown) => void) => resolve(ok("thenable")) })) as unknown as Tool["execute"]),
        tool("throws", () => {
          throw new Error("at once");
        }),
      ],
    });
    const { context } = countedSignal();
    expect((await registry.call("plain", "{}", context)).output).toBe("plain");
    expect((await registry.call("thenable", "{}", context)).output).toBe("thenable");
    expect((await registry.call("throws", "{}", context)).error).toBe("tool throws failed: at once");
  });
});
