import { describe, expect, test } from "bun:test";
import type { Logger } from "../../src/core/logger.ts";
import type { ToolSpec } from "../../src/providers/types.ts";
import {
  ok,
  TOOL_MAX_ARGUMENT_BYTES,
  TOOL_MAX_OUTPUT_BYTES,
  ToolRegistry,
  type Tool,
  type ToolSource,
} from "../../src/tools/index.ts";
import type { ToolContext } from "../../src/tools/types.ts";

function context(workspace = "/nonexistent", signal: AbortSignal = new AbortController().signal): ToolContext {
  return { sessionId: "test-session", workspace, signal };
}

function tool(name: string, run: Tool["execute"]): Tool {
  return { spec: { name, description: name, parameters: { type: "object" } }, execute: run };
}

const echo = tool("echo", async (args) => ok(JSON.stringify(args)));
const boom = tool("boom", async () => {
  throw new Error("kaboom");
});

class MutableSource implements ToolSource {
  readonly id = "plugin:test";
  tools = new Map<string, Tool>();
  list(): ToolSpec[] {
    return [...this.tools.values()].map((t) => t.spec);
  }
  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }
}

describe("ToolRegistry.call", () => {
  const registry = new ToolRegistry({ builtins: [echo, boom] });

  test("passes parsed JSON arguments; empty text means {}", async () => {
    const result = await registry.call("echo", '{"a":1}', context());
    expect(result).toEqual({ success: true, output: '{"a":1}', error: null });
    expect((await registry.call("echo", "", context())).output).toBe("{}");
    expect((await registry.call("echo", "  \n", context())).output).toBe("{}");
  });

  test("invalid JSON is an error result naming the tool and the JSON error", async () => {
    const result = await registry.call("echo", '{"a":', context());
    expect(result.success).toBe(false);
    expect(result.error).toContain("echo");
    expect(result.error).toContain("invalid JSON");
  });

  test("non-object JSON is an error result", async () => {
    for (const raw of ["[1,2]", "42", '"text"', "null", "true"]) {
      const result = await registry.call("echo", raw, context());
      expect(result.success).toBe(false);
      expect(result.error).toContain("must be a JSON object");
    }
  });

  test("arguments at the byte limit pass and one past fails", async () => {
    const wrap = '{"a":""}';
    const fill = "x".repeat(TOOL_MAX_ARGUMENT_BYTES - wrap.length);
    const atLimit = `{"a":"${fill}"}`;
    expect(atLimit.length).toBe(TOOL_MAX_ARGUMENT_BYTES);
    expect((await registry.call("echo", atLimit, context())).success).toBe(true);
    const past = await registry.call("echo", `{"a":"${fill}x"}`, context());
    expect(past.success).toBe(false);
    expect(past.error).toContain(String(TOOL_MAX_ARGUMENT_BYTES));
  });

  test("unknown tool lists the available names", async () => {
    const result = await registry.call("nope", "{}", context());
    expect(result.success).toBe(false);
    expect(result.error).toContain('unknown tool "nope"');
    expect(result.error).toContain("echo, boom");
  });

  test("a throwing tool becomes an error result with its message", async () => {
    const result = await registry.call("boom", "{}", context());
    expect(result).toMatchObject({ success: false });
    expect(result.error).toContain("kaboom");
  });

  test("a malformed result from a tool is an error result", async () => {
    const bad = tool("bad", async () => ({ nope: true }) as never);
    const result = await new ToolRegistry({ builtins: [bad] }).call("bad", "{}", context());
    expect(result.success).toBe(false);
    expect(result.error).toContain("malformed");
  });

  test("an aborted signal stops a hanging tool and an already-aborted one never runs", async () => {
    let started = 0;
    const hang = tool("hang", () => {
      started++;
      return new Promise(() => {});
    });
    const local = new ToolRegistry({ builtins: [hang] });
    const controller = new AbortController();
    const pending = local.call("hang", "{}", context("/", controller.signal));
    controller.abort(new Error("user pressed stop"));
    const result = await pending;
    expect(result.success).toBe(false);
    expect(result.error).toContain("user pressed stop");
    const again = await local.call("hang", "{}", context("/", controller.signal));
    expect(again.success).toBe(false);
    expect(started).toBe(1);
  });

  test("output at the cap is kept whole and one byte past is truncated with a marker", async () => {
    let size = TOOL_MAX_OUTPUT_BYTES;
    const big = tool("big", async () => ok("é".repeat(size / 2)));
    const local = new ToolRegistry({ builtins: [big] });
    const atCap = await local.call("big", "", context());
    expect(Buffer.byteLength(atCap.output)).toBe(TOOL_MAX_OUTPUT_BYTES);
    expect(atCap.output).not.toContain("truncated");
    size = TOOL_MAX_OUTPUT_BYTES + 2;
    const past = await local.call("big", "", context());
    expect(past.output).toContain("truncated");
    expect(Buffer.byteLength(past.output)).toBeLessThanOrEqual(TOOL_MAX_OUTPUT_BYTES);
    expect(past.output).not.toContain("\uFFFD");
  });

  test("counts calls and errors per tool", async () => {
    const local = new ToolRegistry({ builtins: [echo, boom] });
    await local.call("echo", "{}", context());
    await local.call("echo", "{", context());
    await local.call("boom", "{}", context());
    await local.call("missing", "{}", context());
    expect(local.counts()).toEqual({ echo: { calls: 2, errors: 1 }, boom: { calls: 1, errors: 1 } });
  });
});

describe("ToolRegistry specs and sources", () => {
  test("disabled built-ins are hidden and refused; a getter is read at call time", async () => {
    let disabled: string[] = ["boom"];
    const registry = new ToolRegistry({ builtins: [echo, boom], disabled: () => disabled });
    expect(registry.names()).toEqual(["echo"]);
    expect((await registry.call("boom", "{}", context())).error).toContain('unknown tool "boom"');
    disabled = [];
    expect(registry.names()).toEqual(["echo", "boom"]);
  });

  test("source changes are seen at call time, never cached", async () => {
    const source = new MutableSource();
    const registry = new ToolRegistry({ builtins: [echo] });
    registry.addSource(source);
    expect(registry.names()).toEqual(["echo"]);
    source.tools.set("weather", tool("weather", async () => ok("sunny")));
    expect(registry.names()).toEqual(["echo", "weather"]);
    expect((await registry.call("weather", "{}", context())).output).toBe("sunny");
    source.tools.set("weather", tool("weather", async () => ok("rainy")));
    expect((await registry.call("weather", "{}", context())).output).toBe("rainy");
    source.tools.delete("weather");
    expect((await registry.call("weather", "{}", context())).success).toBe(false);
    expect(registry.removeSource(source.id)).toBe(true);
  });

  test("specs() answers the same array while the disabled list and every source list are unchanged", () => {
    const weather = tool("weather", async () => ok("sunny"));
    let list: ToolSpec[] = [];
    const source: ToolSource = { id: "plugins", list: () => list, get: () => undefined };
    let disabled: string[] = [];
    const registry = new ToolRegistry({ builtins: [echo, boom], disabled: () => disabled });
    registry.addSource(source);
    const first = registry.specs();
    expect(registry.specs()).toBe(first);
    list = [weather.spec]; // a plugin reload: a new generation answers a new array
    const reloaded = registry.specs();
    expect(reloaded).not.toBe(first);
    expect(reloaded.map((s) => s.name)).toEqual(["echo", "boom", "weather"]);
    disabled = ["boom"]; // a config reload
    expect(registry.specs().map((s) => s.name)).toEqual(["echo", "weather"]);
    registry.removeSource("plugins");
    expect(registry.specs().map((s) => s.name)).toEqual(["echo"]);
  });

  test("built-ins win name collisions and the clash is warned about once", async () => {
    const lines: string[] = [];
    const logger = { ...silentLogger(), warn: (message: string) => lines.push(message) };
    const source = new MutableSource();
    source.tools.set("echo", tool("echo", async () => ok("impostor")));
    const registry = new ToolRegistry({ builtins: [echo], logger });
    registry.addSource(source);
    expect(registry.specs().map((s) => s.name)).toEqual(["echo"]);
    registry.specs();
    expect((await registry.call("echo", '{"b":2}', context())).output).toBe('{"b":2}');
    expect(lines.filter((l) => l.includes("is hidden"))).toHaveLength(1);
  });

  test("a source that throws while listing is skipped, not fatal", () => {
    const broken: ToolSource = {
      id: "plugin:broken",
      list: () => {
        throw new Error("generation gone");
      },
      get: () => undefined,
    };
    const registry = new ToolRegistry({ builtins: [echo], logger: silentLogger() });
    registry.addSource(broken);
    expect(registry.names()).toEqual(["echo"]);
  });
});

function silentLogger(): Logger {
  const noop = () => {};
  const logger: Logger = { trace: noop, debug: noop, info: noop, warn: noop, error: noop, child: () => logger };
  return logger;
}
