/**
 * Servers that misbehave: garbage on stdout, invalid tool definitions, names the model APIs would reject, a 10 MB
 * result, a message over the line limit, errors of both kinds.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { MAX_JSON_DEPTH } from "../../src/core/json/index.ts";
import { MCP_MAX_MESSAGE_BYTES } from "../../src/mcp/limits.ts";
import type { McpManager } from "../../src/mcp/manager.ts";
import { TOOL_MAX_OUTPUT_BYTES } from "../../src/tools/limits.ts";
import { ToolRegistry } from "../../src/tools/registry.ts";
import { TRUNCATION_MARKER } from "../../src/tools/result.ts";
import { TOOL_NAME_PATTERN } from "../../src/core/tool-names.ts";
import { captureLog, fixture, managerFor, toolContext, workspaces } from "./helpers.ts";
import { waitFor } from "../helpers/wait.ts";

setDefaultTimeout(60_000);

const spaces = workspaces();
const opened: McpManager[] = [];
afterAll(async () => {
  await Promise.all(opened.map((m) => m.close()));
  spaces.cleanup();
});

async function open(flags: string[] = [], extra: Record<string, unknown> = {}) {
  const workspace = spaces.make();
  const manager = managerFor({ fx: fixture(flags, extra) }, workspace);
  opened.push(manager);
  const registry = new ToolRegistry({ builtins: [] });
  registry.addSource(manager);
  await manager.handle("fx").listTools();
  const call = (name: string, args: unknown = {}) => registry.call(name, JSON.stringify(args), toolContext(workspace.root));
  return { manager, registry, call, handle: manager.handle("fx") };
}

describe("a server that prints garbage on stdout", () => {
  test("its non-protocol lines are skipped, counted and reported once; the protocol still works", async () => {
    await captureLog(async (lines) => {
      const { call, handle } = await open(["--garbage-at-start"]);
      expect((await call("mcp__fx__garbage_between")).output).toBe("answered after garbage");
      expect((await call("mcp__fx__echo", { text: "ok" })).output).toBe("ok");
      expect(handle.garbageLines).toBe(3);
      const warnings = lines.filter((l) => l.includes("not protocol on stdout"));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain("WARN  [mcp.fx]");
      expect(warnings[0]).toContain("Server starting... (this line is not JSON)");
    });
  });
});

describe("tool definitions", () => {
  test("an invalid schema leaves that tool out with a warning; names are sanitised, unique and reach their tool", async () => {
    await captureLog(async (lines) => {
      const { registry, call, manager } = await open(["--bad-tools"]);
      const log = lines.join("\n");
      expect(log).toContain('MCP server "fx": tool "string_schema" skipped: invalid definition');
      expect(log).toContain('MCP server "fx": tool "no_schema" skipped');
      const names = registry.names();
      expect(names.some((n) => n.includes("string_schema") || n.includes("no_schema"))).toBe(false);
      for (const name of names) expect(name).toMatch(TOOL_NAME_PATTERN);
      const renamed = manager.namedTools().filter((t) => t.tool.startsWith("dotted") || t.tool.startsWith("xxx"));
      expect(renamed.map((t) => t.tool).sort()).toEqual(["dotted name", "dotted.name", "x".repeat(100)]);
      expect(new Set(renamed.map((t) => t.name)).size).toBe(3);
      for (const t of renamed) {
        expect(t.name).toMatch(/^mcp__fx__[A-Za-z0-9_-]+_[0-9a-f]{8}$/);
        expect((await call(t.name)).output).toBe(`ran ${t.tool}`);
      }
    });
  });
});

describe("results", () => {
  test("a 10 MB result is cut to the registry's output cap", async () => {
    const { call } = await open();
    const result = await call("mcp__fx__big", { bytes: 10_000_000 });
    expect(result.success).toBe(true);
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(TOOL_MAX_OUTPUT_BYTES);
    expect(result.output).toEndWith(TRUNCATION_MARKER.replace("{limit}", String(TOOL_MAX_OUTPUT_BYTES)));
  });

  test(`a message of ${MCP_MAX_MESSAGE_BYTES} bytes is read; one byte more stops the server and fails the call naming the limit`, async () => {
    const { call, handle } = await open();
    const fits = await call("mcp__fx__oversize", { bytes: MCP_MAX_MESSAGE_BYTES });
    expect(fits.success).toBe(true);
    expect(fits.output.startsWith("yyyy")).toBe(true);
    const over = await call("mcp__fx__oversize", { bytes: MCP_MAX_MESSAGE_BYTES + 1 });
    expect(over.success).toBe(false);
    expect(over.error).toContain('MCP server "fx" stopped during tool "oversize"');
    expect(over.error).toContain(`it sent a message of ${MCP_MAX_MESSAGE_BYTES + 1} bytes, over the limit of ${MCP_MAX_MESSAGE_BYTES}`);
    await waitFor(() => handle.state === "ready", "the restart after the oversize line");
    expect((await call("mcp__fx__echo", { text: "back" })).output).toBe("back");
  });

  test(`a message nested ${MAX_JSON_DEPTH} levels is read; one level more stops the server and fails the call naming the limit`, async () => {
    const { call, handle } = await open();
    expect(await call("mcp__fx__deep", { depth: MAX_JSON_DEPTH })).toMatchObject({ success: true, output: "deep" });
    const over = await call("mcp__fx__deep", { depth: MAX_JSON_DEPTH + 1 });
    expect(over.success).toBe(false);
    expect(over.error).toContain('MCP server "fx" stopped during tool "deep"');
    expect(over.error).toContain(`it sent a message: JSON nesting deeper than ${MAX_JSON_DEPTH} levels`);
    await waitFor(() => handle.state === "ready", "the restart after the deep line");
    const attack = await call("mcp__fx__deep", { depth: 100_000 });
    expect(attack.error).toContain(`JSON nesting deeper than ${MAX_JSON_DEPTH} levels`);
    await waitFor(() => handle.state === "ready", "the restart after the attack");
    expect((await call("mcp__fx__echo", { text: "back" })).output).toBe("back");
  });

  test("a tool error result and a refused call are failures naming what happened", async () => {
    const { call } = await open();
    expect(await call("mcp__fx__fail")).toEqual({ success: false, output: "", error: "the fixture failed on purpose" });
    const refused = await call("mcp__fx__refuse");
    expect(refused.success).toBe(false);
    expect(refused.error).toContain('MCP server "fx" refused tool "refuse"');
    expect(refused.error).toContain("bad arguments for refuse");
  });

  test("image, embedded resources and links are mapped to text and notes", async () => {
    const { call } = await open();
    expect((await call("mcp__fx__media")).output).toBe(
      [
        "media follows",
        "[image image/png, 8 bytes: not shown to the model]",
        "[resource file:///notes.txt (text/plain)]\nembedded text",
        "[resource file:///blob.bin, 3 bytes of binary data: not shown to the model]",
        '[resource link "doc": https://example.invalid/doc]',
      ].join("\n"),
    );
  });
});
