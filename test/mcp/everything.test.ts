/**
 * The MCP client against the protocol's reference server from npm (@modelcontextprotocol/server-everything, run by
 * Bun over stdio): list, call, a tool that errors, media and embedded resources, resources and prompts, a timeout.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { isPrxError } from "../../src/core/errors.ts";
import type { McpManager } from "../../src/mcp/manager.ts";
import { ToolRegistry } from "../../src/tools/registry.ts";
import { everything, managerFor, toolContext, workspaces } from "./helpers.ts";

setDefaultTimeout(30_000);

const spaces = workspaces();
const workspace = spaces.make();
let manager: McpManager;
let registry: ToolRegistry;

beforeAll(async () => {
  manager = managerFor({ everything: everything(), slow: everything({ timeout_ms: 300 }) }, workspace);
  registry = new ToolRegistry({ builtins: [] });
  registry.addSource(manager);
  await manager.handle("everything").listTools();
});
afterAll(async () => {
  await manager.close();
  spaces.cleanup();
});

const call = (name: string, args: unknown) => registry.call(name, JSON.stringify(args), toolContext(workspace.root));

describe("the reference MCP server over stdio", () => {
  test("its tools are offered as mcp__everything__<tool> with the server's JSON Schema", () => {
    const echo = registry.specs().find((spec) => spec.name === "mcp__everything__echo");
    expect(echo?.description).toBe("Echoes back the input string");
    expect(echo?.parameters).toMatchObject({ type: "object", properties: { message: { type: "string" } }, required: ["message"] });
    expect(registry.names()).toContain("mcp__everything__get-sum");
  });

  test("a call goes through the registry and comes back as text", async () => {
    expect(await call("mcp__everything__echo", { message: "hello prx" })).toEqual({ success: true, output: "Echo: hello prx", error: null });
    expect((await call("mcp__everything__get-sum", { a: 2, b: 40 })).output).toContain("42");
    expect(registry.counts()["mcp__everything__echo"]).toEqual({ calls: 1, errors: 0 });
  });

  test("arguments that break the server's schema never reach the server: the model reads the field, counted as an error", async () => {
    let reached = 0;
    const counting = new ToolRegistry({ builtins: [] });
    counting.addSource({
      id: "counted",
      list: () => manager.list(),
      get: (name) => {
        const tool = manager.get(name);
        return tool && { ...tool, execute: (args, context) => (reached++, tool.execute(args, context)) };
      },
    });
    const context = toolContext(workspace.root);
    const result = await counting.call("mcp__everything__get-sum", JSON.stringify({ a: "two", b: 2 }), context);
    expect(result).toEqual({ success: false, output: "", error: "invalid arguments for mcp__everything__get-sum: a: must be number" });
    expect(await counting.call("mcp__everything__get-sum", JSON.stringify({ b: 2 }), context)).toMatchObject({ error: expect.stringContaining("a: is required") });
    expect(reached).toBe(0);
    expect(counting.counts()["mcp__everything__get-sum"]).toEqual({ calls: 2, errors: 2 });
    expect((await counting.call("mcp__everything__get-sum", JSON.stringify({ a: 1, b: 2 }), context)).output).toContain("3");
    expect(reached).toBe(1);
  });

  test("an image becomes a note; an embedded resource shows its text under its URI", async () => {
    expect((await call("mcp__everything__get-tiny-image", {})).output).toMatch(/\[image image\/png, \d+ bytes: not shown to the model\]/);
    const reference = await call("mcp__everything__get-resource-reference", { resourceType: "Text", resourceId: 1 });
    expect(reference.output).toContain("[resource demo://resource/dynamic/text/1 (text/plain)]\nResource 1:");
  });

  test("resources and prompts are listed", async () => {
    const resources = await manager.handle("everything").listResources();
    expect(resources.length).toBeGreaterThan(0);
    expect(resources[0]).toMatchObject({ uri: expect.stringMatching(/^demo:\/\//) });
    const prompts = await manager.handle("everything").listPrompts();
    expect(prompts.find((p) => p.name === "args-prompt")?.arguments).toEqual([
      expect.objectContaining({ name: "city", required: true }),
      expect.objectContaining({ name: "state", required: false }),
    ]);
  });

  test("a call past timeout_ms fails naming the server, the tool and the setting; the server keeps serving", async () => {
    const handle = manager.handle("slow");
    await handle.listTools();
    let error: unknown;
    await handle.call("trigger-long-running-operation", { duration: 30, steps: 3 }).catch((e: unknown) => (error = e));
    expect(isPrxError(error, "MCP_TIMEOUT")).toBe(true);
    expect((error as Error).message).toBe('MCP server "slow" did not answer tool "trigger-long-running-operation" within 300 ms');
    expect((error as { hint?: string }).hint).toContain("raise [mcp.servers.slow] timeout_ms");
    expect(await handle.call("echo", { message: "still here" })).toEqual({ success: true, output: "Echo: still here", error: null });
    expect(handle.state).toBe("ready");
  });
});
