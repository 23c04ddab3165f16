/** A reloaded [mcp]: servers added are offered, removed ones are closed and withdrawn, changed ones restart, others run on. */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { McpConfigSchema } from "../../src/config/mcp.ts";
import { ToolRegistry } from "../../src/tools/registry.ts";
import { alive, fixture, managerFor, toolContext, workspaces } from "./helpers.ts";
import { waitFor } from "../helpers/wait.ts";

setDefaultTimeout(60_000);

const spaces = workspaces();
afterAll(() => spaces.cleanup());

test("reconfigure adds, removes and restarts servers and the offered tools follow", async () => {
  const workspace = spaces.make();
  const manager = managerFor({ keep: fixture(), gone: fixture() }, workspace);
  const registry = new ToolRegistry({ builtins: [] });
  registry.addSource(manager);
  const call = async (name: string) => {
    await waitFor(() => registry.names().includes(name), `${name} to be offered`);
    return registry.call(name, JSON.stringify({ text: name }), toolContext(workspace.root));
  };
  try {
    expect((await call("mcp__keep__echo")).output).toBe("mcp__keep__echo");
    expect((await call("mcp__gone__echo")).output).toBe("mcp__gone__echo");
    const keepPid = manager.handle("keep").pid;
    const gonePid = manager.handle("gone").pid;

    const next = McpConfigSchema.parse({ servers: { keep: fixture(), added: fixture() } });
    expect(manager.reconfigure(next)).toEqual({ added: ["added"], removed: ["gone"], changed: [] });
    expect(registry.names()).not.toContain("mcp__gone__echo");
    await waitFor(() => gonePid === null || !alive(gonePid), "the removed server to exit");
    expect(manager.handle("keep").pid).toBe(keepPid);
    expect((await call("mcp__added__echo")).output).toBe("mcp__added__echo");

    const changed = McpConfigSchema.parse({ servers: { keep: fixture([], { timeout_ms: 5_000 }), added: fixture() } });
    expect(manager.reconfigure(changed)).toEqual({ added: [], removed: [], changed: ["keep"] });
    const after = await call("mcp__keep__echo");
    expect(after).toMatchObject({ output: "mcp__keep__echo" });
    expect(manager.handle("keep").pid).not.toBe(keepPid);
  } finally {
    await manager.close();
  }
});
