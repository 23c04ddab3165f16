/** Reload of remote plugins: build-then-swap, the old worker finishes its in-flight calls, a failed start keeps the old. */
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigSchema } from "../../../src/config/schema.ts";
import { openSqliteStorage } from "../../../src/storage/index.ts";
import { createLogger } from "../../../src/core/logger.ts";
import { openWorkspace } from "../../../src/core/workspace.ts";
import { pluginInfo } from "../../../src/plugins/api.ts";
import { EventBus } from "../../../src/plugins/events/index.ts";
import { getPluginRuntime, type PluginRuntime } from "../../../src/plugins/runtime/index.ts";
import type { ChatRequest, ChatResponse, Provider, ProviderResolver } from "../../../src/providers/types.ts";
import type { ToolContext } from "../../../src/tools/types.ts";
import { ASSIST_DIR, editManifest, TRANSPORTS, workspaceWith, type TestWorkspace, quietLogs } from "./helpers.ts";
import { waitFor } from "../../helpers/wait.ts";

quietLogs();

/** A stand-in for the configured LLM whose answers the test releases one by one (not the unit under test). */
class GateProvider implements Provider {
  readonly name = "gate";
  readonly waiting: Array<{ prompt: string; release: (text: string) => void }> = [];
  /** When true, answers at once. */
  open = false;
  chat(request: ChatRequest): Promise<ChatResponse> {
    const prompt = request.messages.at(-1)?.content ?? "";
    const answer = (text: string): ChatResponse => ({ text, toolCalls: [], model: request.model, provider: this.name });
    if (this.open) return Promise.resolve(answer(`open ${prompt}`));
    return new Promise((resolve) => this.waiting.push({ prompt, release: (text) => resolve(answer(text)) }));
  }
}

function context(): ToolContext {
  return { sessionId: "reload", workspace: "/tmp", signal: new AbortController().signal, sendMessage: () => {} };
}

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanup.reverse()) await fn();
  cleanup = [];
});

function start(transport: (typeof TRANSPORTS)[number]): { runtime: PluginRuntime; gate: GateProvider; ws: TestWorkspace } {
  const ws = workspaceWith([ASSIST_DIR], "", transport);
  const workspace = openWorkspace(ws.root);
  const gate = new GateProvider();
  const providers: ProviderResolver = { resolve: () => gate, names: () => ["gate"] };
  const bus = new EventBus();
  const config = ConfigSchema.parse({ default_provider: "gate", default_model: "gate-1" });
  const storage = openSqliteStorage(workspace.dbPath);
  const runtime = getPluginRuntime(
    workspace,
    { storage, events: bus, memory: () => null, providers, logger: createLogger("test") },
    { config, services: { cron: false, hooks: false } },
  );
  cleanup.push(async () => {
    gate.open = true;
    for (const w of gate.waiting.splice(0)) w.release("closing");
    await runtime.stop();
    bus.close();
    await storage.close();
    ws.cleanup();
  });
  return { runtime, gate, ws };
}

describe.each(TRANSPORTS)("reload of a remote plugin (%s)", (transport) => {
  test("the new worker serves after the swap; the old one finishes its in-flight call, then shuts down", async () => {
    const { runtime, gate, ws } = start(transport);
    const services = runtime.services!;
    cleanup.push(() => services.close());
    const first = await runtime.start();
    const model = services.remoteProviders.resolve("remote:assist-remote")!;
    expect((await model.chat({ model: "TEXT_LARGE", messages: [{ role: "user", content: "a" }] })).text).toBe("model v1: a");
    const oldHandle = first.remote("assist-remote")!.handle;
    const tool = runtime.tools.get("GATED_ECHO")!;

    const inFlight = tool.execute({ text: "slow" }, context());
    await waitFor(() => gate.waiting.length === 1);
    expect(gate.waiting[0]!.prompt).toBe("gate: slow");

    const dir = join(ws.pluginsDir, "assist-remote");
    editManifest(dir, { settings: { VERSION: "v2" } });
    // new code too: a reload must not reuse the module the old worker imported
    writeFileSync(join(dir, "worker.ts"), readFileSync(join(dir, "worker.ts"), "utf8").replace(" saw: ", " noticed: "));
    expect(await runtime.reload("assist-remote")).toBe(2);
    const newHandle = runtime.current().remote("assist-remote")!.handle;
    expect(newHandle).not.toBe(oldHandle);
    expect(newHandle.status().state).toBe("ready");
    // swapped, but the old worker still owns the call it started
    expect(oldHandle.status().state).toBe("ready");
    expect(oldHandle.status().inFlight).toBe(1);
    expect(first.isReleased).toBe(false);

    gate.open = true;
    expect((await tool.execute({ text: "fresh" }, context())).output).toBe("v2: open gate: fresh");
    // the provider proxy resolved before the reload now reaches the new worker
    expect((await model.chat({ model: "TEXT_LARGE", messages: [{ role: "user", content: "b" }] })).text).toBe("model v2: b");
    expect(await runtime.current().remote("assist-remote")!.context({ text: "hi", sessionId: "reload" })).toEqual([
      "assist-remote v2 noticed: hi",
    ]);
    gate.waiting.shift()!.release("late answer");
    expect(await inFlight).toMatchObject({ success: true, output: "v1: late answer" });
    await runtime.settled();
    expect(first.isReleased).toBe(true);
    expect(oldHandle.status().state).toBe("stopped");
    expect(newHandle.status().state).toBe("ready");
  });

  test("a new version that fails to start leaves the old generation serving", async () => {
    const { runtime, gate, ws } = start(transport);
    await runtime.start();
    gate.open = true;
    const handle = runtime.current().remote("assist-remote")!.handle;
    editManifest(join(ws.pluginsDir, "assist-remote"), { settings: { VERSION: "v2", FAIL_INIT: "1" } });
    const error = await runtime.reload("assist-remote").catch((e) => e);
    expect(error.code).toBe("PLUGIN_RELOAD");
    expect(error.message).toContain("generation 1 keeps serving");
    expect(error.message).toContain("init refused: FAIL_INIT is set");
    expect(runtime.current().number).toBe(1);
    expect(runtime.current().remote("assist-remote")!.handle).toBe(handle);
    expect(handle.status().state).toBe("ready");
    const result = await runtime.tools.get("GATED_ECHO")!.execute({ text: "still" }, context());
    expect(result.output).toBe("v1: open gate: still");
  });
});

test("a loaded remote plugin whose worker is down is reported as an error until a reload brings it back", async () => {
  const { runtime, gate } = start("worker");
  await runtime.start();
  await runtime.current().remote("assist-remote")!.handle.shutdown();
  const down = pluginInfo(runtime, "assist-remote");
  expect([down.status, down.error_code, down.remote!.state]).toEqual(["error", "REMOTE_CRASHED", "stopped"]);
  expect(down.message).toContain("remote plugin is stopped");
  const result = await runtime.tools.get("GATED_ECHO")!.execute({ text: "x" }, context());
  expect(result.success).toBe(false);
  expect(result.error).toContain("shut down");
  await runtime.reload("assist-remote");
  // its descriptor was cached by the first load: the reloaded plugin starts with its first call
  const up = pluginInfo(runtime, "assist-remote");
  expect([up.status, up.error_code, up.remote!.state]).toEqual(["active", null, "idle"]);
  gate.open = true;
  const again = await runtime.tools.get("GATED_ECHO")!.execute({ text: "back" }, context());
  expect(again.output).toBe("v1: open gate: back");
  expect(pluginInfo(runtime, "assist-remote").remote!.state).toBe("ready");
}, 30_000);
