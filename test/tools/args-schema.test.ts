/**
 * Arguments are checked against the tool's declared schema before any tool code runs, for every tool family:
 * built-ins (their zod schema), plugin and MCP tools (their JSON Schema, draft 2020-12 or draft-07, compiled once
 * per generation). The model reads which field is wrong. MCP against a real server: test/mcp/everything.test.ts.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { z } from "zod";
import { openAgentHost } from "../../src/agent/index.ts";
import { createPluginExtensions } from "../../src/agent/plugin-extensions.ts";
import { setLogLevel } from "../../src/core/logger.ts";
import { defineTool } from "../../src/tools/define.ts";
import { TOOL_ARGUMENT_ERRORS_LISTED } from "../../src/tools/limits.ts";
import { ToolRegistry } from "../../src/tools/registry.ts";
import { ok } from "../../src/tools/result.ts";
import type { Tool, ToolContext, ToolSource } from "../../src/tools/types.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { SHARED_CACHE } from "../plugins/capabilities/helpers.ts";
import { hostFixture, startProbe } from "../plugins/remote/helpers.ts";

setDefaultTimeout(90_000);
// the remote plugin helpers silence the log for the whole test process: later files get the level they start with
const startLevel = (["trace", "debug", "info", "warn", "error", "silent"] as const).find((l) => l === process.env.PRX_LOG) ?? "warn";
afterAll(() => setLogLevel(startLevel));

const context = (): ToolContext => ({ sessionId: "s", workspace: "/nonexistent", signal: new AbortController().signal });

function sourceOf(id: string, tools: Tool[]): ToolSource {
  return { id, list: () => tools.map((t) => t.spec), get: (name) => tools.find((t) => t.spec.name === name) };
}

/** A plugin-style tool whose schema reads are counted (each compile reads it once) and whose runs are counted. */
function countedTool(name: string, schema: Record<string, unknown>) {
  const counts = { schemaReads: 0, runs: 0 };
  const tool: Tool = {
    spec: {
      name,
      description: name,
      get parameters() {
        counts.schemaReads++;
        return schema;
      },
    },
    execute: async () => (counts.runs++, ok("ran")),
  };
  return { tool, counts };
}

describe("built-in tools", () => {
  test("arguments breaking the zod schema never reach run; the error names the field", async () => {
    let runs = 0;
    const builtin = defineTool({
      name: "typed",
      description: "typed",
      args: z.object({ path: z.string(), max: z.number().int().optional() }),
      run: async () => (runs++, ok("ran")),
    });
    const registry = new ToolRegistry({ builtins: [builtin] });
    const result = await registry.call("typed", JSON.stringify({ path: 3 }), context());
    expect(result.success).toBe(false);
    expect(result.error).toStartWith("invalid arguments for typed: path:");
    expect(runs).toBe(0);
    expect((await registry.call("typed", JSON.stringify({ path: "a" }), context())).output).toBe("ran");
    expect(runs).toBe(1);
  });
});

describe("plugin and MCP tools (JSON Schema)", () => {
  test("draft 2020-12 (unmarked): a violation is refused naming each field; the tool's code is not reached", async () => {
    const { tool, counts } = countedTool("t2020", {
      type: "object",
      properties: { n: { type: "integer", minimum: 1 }, tags: { type: "array", prefixItems: [{ type: "string" }] }, mode: { enum: ["a", "b"] } },
      required: ["n"],
      additionalProperties: false,
    });
    const registry = new ToolRegistry({ builtins: [] });
    registry.addSource(sourceOf("plugin", [tool]));
    expect(await registry.call("t2020", JSON.stringify({ n: 0, tags: [1], mode: "c", extra: true }), context())).toEqual({
      success: false,
      output: "",
      error:
        'invalid arguments for t2020: (arguments): must NOT have additional properties: "extra"; n: must be >= 1; ' +
        'tags.0: must be string; mode: must be equal to one of the allowed values: ["a","b"]',
    });
    expect((await registry.call("t2020", "{}", context())).error).toBe("invalid arguments for t2020: n: is required");
    expect(counts.runs).toBe(0);
    expect((await registry.call("t2020", JSON.stringify({ n: 2, tags: ["x"] }), context())).output).toBe("ran");
    expect(counts.runs).toBe(1);
    expect(registry.counts()["t2020"]).toEqual({ calls: 3, errors: 2 });
  });

  test("draft-07 by its $schema: definitions and tuple items are read as draft-07 reads them", async () => {
    const { tool, counts } = countedTool("t07", {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      definitions: { word: { type: "string", minLength: 2 } },
      properties: { pair: { type: "array", items: [{ $ref: "#/definitions/word" }, { type: "number" }], additionalItems: false } },
    });
    const registry = new ToolRegistry({ builtins: [] });
    registry.addSource(sourceOf("plugin", [tool]));
    expect((await registry.call("t07", JSON.stringify({ pair: ["a", "b", 3] }), context())).error).toBe(
      "invalid arguments for t07: pair: must NOT have more than 2 items; pair.0: must NOT have fewer than 2 characters; pair.1: must be number",
    );
    expect(counts.runs).toBe(0);
    expect((await registry.call("t07", JSON.stringify({ pair: ["ab", 3] }), context())).output).toBe("ran");
  });

  test("a schema is compiled once per tool spec (one generation), not per call; a new spec is compiled anew", async () => {
    const schema = { type: "object", properties: { a: { type: "string" } } };
    const first = countedTool("once", schema);
    const registry = new ToolRegistry({ builtins: [] });
    let current: Tool[] = [first.tool];
    registry.addSource({ id: "gen", list: () => current.map((t) => t.spec), get: (name) => current.find((t) => t.spec.name === name) });
    for (let i = 0; i < 5; i++) await registry.call("once", JSON.stringify({ a: String(i) }), context());
    expect(first.counts).toEqual({ schemaReads: 1, runs: 5 });
    const next = countedTool("once", { type: "object", properties: { a: { type: "number" } } });
    current = [next.tool];
    expect((await registry.call("once", JSON.stringify({ a: "x" }), context())).error).toBe("invalid arguments for once: a: must be number");
    expect(next.counts).toEqual({ schemaReads: 1, runs: 0 });
  });

  test(`at most ${TOOL_ARGUMENT_ERRORS_LISTED} violations are listed; the rest are counted`, async () => {
    const properties = Object.fromEntries(Array.from({ length: TOOL_ARGUMENT_ERRORS_LISTED + 2 }, (_, i) => [`f${i}`, { type: "string" }]));
    const { tool } = countedTool("many", { type: "object", properties });
    const registry = new ToolRegistry({ builtins: [] });
    registry.addSource(sourceOf("plugin", [tool]));
    const args = Object.fromEntries(Object.keys(properties).map((key) => [key, 1]));
    const error = (await registry.call("many", JSON.stringify(args), context())).error!;
    expect(error.split("; ").length).toBe(TOOL_ARGUMENT_ERRORS_LISTED + 1);
    expect(error).toEndWith("; and 2 more");
    const { tool: exact } = countedTool("exact", { type: "object", properties: Object.fromEntries(Object.entries(properties).slice(0, TOOL_ARGUMENT_ERRORS_LISTED)) });
    registry.addSource(sourceOf("exact", [exact]));
    const listed = (await registry.call("exact", JSON.stringify(args), context())).error!;
    expect(listed.split("; ").length).toBe(TOOL_ARGUMENT_ERRORS_LISTED);
    expect(listed).not.toContain("more");
  });

  test("a schema that cannot be compiled refuses every call, naming why, and never runs the tool", async () => {
    const { tool, counts } = countedTool("broken", { type: "object", properties: { a: { $ref: "#/nowhere" } } });
    const registry = new ToolRegistry({ builtins: [] });
    registry.addSource(sourceOf("plugin", [tool]));
    const result = await registry.call("broken", JSON.stringify({ a: 1 }), context());
    expect(result.error).toStartWith("tool broken declares a parameters schema that cannot be checked (can't resolve reference #/nowhere");
    expect(result.error).toEndWith("its author must fix the schema");
    expect(counts.runs).toBe(0);
  });
});

describe("remote (elizaOS-style) plugin actions", () => {
  const host = hostFixture();
  afterAll(() => host.close());

  for (const transport of ["worker", "process"] as const) {
    test(`${transport}: an action's declared parameters are checked before validate or the handler run`, async () => {
      const handle = await startProbe(host, transport);
      try {
        const registry = new ToolRegistry({ builtins: [] });
        registry.addSource(sourceOf("probe", handle.tools()));
        const refused = await registry.call("TYPED", JSON.stringify({ count: 0, unit: "h" }), context());
        expect(refused.error).toBe('invalid arguments for TYPED: count: must be >= 1; unit: must be equal to one of the allowed values: ["s","ms"]');
        expect((await registry.call("TYPED", JSON.stringify({ count: 1.5 }), context())).error).toBe("invalid arguments for TYPED: count: must be integer");
        expect((await registry.call("TYPED", JSON.stringify({ count: 2 }), context())).output).toBe("reached 1");
      } finally {
        await handle.shutdown();
      }
    });
  }
});

describe("WASM plugin tools", () => {
  // transpiled components are content-addressed: the cache the capability tests share spares a transpile per run
  const ws = tempWorkspace("", {
    prefix: "prx-eliza-plugins-args-",
    sharedCache: SHARED_CACHE,
    plugins: [join(import.meta.dir, "../fixtures/test-wasm/ts-tool")],
  });
  afterAll(() => ws.cleanup());

  test("a component tool's parameters-schema is checked before the guest runs", async () => {
    const host = await openAgentHost({ workspace: ws.dir, extend: createPluginExtensions({ cron: false }), env: {} });
    try {
      await host.loadExtensions();
      // a component slow to load (a loaded machine) joins the serving generation late
      for (let i = 0; i < 1200 && !host.tools.names().includes("ts_greet"); i++) await Bun.sleep(50);
      expect(host.plugins!.runtime.current().plugin("ts-tool")?.error ?? null).toBeNull();
      const refused = await host.tools.call("ts_greet", JSON.stringify({ name: 5 }), context());
      expect(refused).toEqual({ success: false, output: "", error: "invalid arguments for ts_greet: name: must be string" });
      // the guest counts its greetings in kv: the refused call never reached it
      expect(await host.tools.call("ts_greet", JSON.stringify({ name: "ada" }), context())).toMatchObject({ success: true, output: "hello ada #1" });
    } finally {
      await host.close();
    }
  });
});
