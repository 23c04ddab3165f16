/**
 * A turn aborted while an MCP tool runs: the call ends at once as aborted, the server is told to stop the request
 * (notifications/cancelled with its id, as the MCP spec asks) and keeps serving; calls that finish leave nothing
 * behind on the turn's signal.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { McpManager } from "../../src/mcp/manager.ts";
import { ToolRegistry } from "../../src/tools/registry.ts";
import { fixture, managerFor, toolContext, workspaces } from "./helpers.ts";
import { waitFor } from "../helpers/wait.ts";

setDefaultTimeout(30_000);

const spaces = workspaces();
const opened: McpManager[] = [];
afterAll(async () => {
  await Promise.all(opened.map((m) => m.close()));
  spaces.cleanup();
});

function open(notesFile: string) {
  const workspace = spaces.make();
  const manager = managerFor({ fx: fixture(["--notes-file", notesFile]) }, workspace);
  opened.push(manager);
  const registry = new ToolRegistry({ builtins: [] });
  registry.addSource(manager);
  return { manager, registry, workspace };
}

const notes = (file: string): Array<{ method: string; params?: { requestId?: unknown; reason?: string } }> =>
  existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line)) : [];

describe("aborting an MCP tool call", () => {
  test("the call ends as aborted, the server gets notifications/cancelled for it, and the next call is answered", async () => {
    const file = join(spaces.make().root, "notes.jsonl");
    const { manager, registry, workspace } = open(file);
    await manager.handle("fx").listTools();
    const turn = new AbortController();
    const slow = registry.call("mcp__fx__slow", JSON.stringify({ ms: 20_000 }), toolContext(workspace.root, turn.signal));
    await Bun.sleep(50); // the request is on its way to the server
    turn.abort(new Error("the user pressed stop"));
    expect(await slow).toMatchObject({ success: false, error: "tool mcp__fx__slow was aborted: the user pressed stop" });
    await waitFor(() => notes(file).some((n) => n.method === "notifications/cancelled"), "the cancellation to reach the server");
    const cancelled = notes(file).find((n) => n.method === "notifications/cancelled")!;
    expect(typeof cancelled.params?.requestId).toBe("number");
    expect(cancelled.params?.reason).toContain("the user pressed stop");
    const next = await registry.call("mcp__fx__echo", JSON.stringify({ text: "still here" }), toolContext(workspace.root));
    expect(next).toMatchObject({ success: true, output: "still here" });
  });

  test("calls that finish before an abort are not cancelled, and a signal aborted later cancels nothing", async () => {
    const file = join(spaces.make().root, "notes.jsonl");
    const { manager, registry, workspace } = open(file);
    await manager.handle("fx").listTools();
    const turn = new AbortController();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => registry.call("mcp__fx__echo", JSON.stringify({ text: `n${i}` }), toolContext(workspace.root, turn.signal))));
    expect(results.map((r) => r.output)).toEqual(Array.from({ length: 20 }, (_, i) => `n${i}`));
    turn.abort("too late");
    const after = await registry.call("mcp__fx__echo", JSON.stringify({ text: "fresh turn" }), toolContext(workspace.root));
    expect(after.output).toBe("fresh turn");
    expect(notes(file).filter((n) => n.method === "notifications/cancelled")).toEqual([]);
  });
});
