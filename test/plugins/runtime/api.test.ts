import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { ConfigSchema } from "../../../src/config/schema.ts";
import { PrxError } from "../../../src/core/errors.ts";
import {
  listPlugins,
  PluginInfoSchema,
  PluginListResponseSchema,
  PluginReloadResponseSchema,
  pluginInfo,
  reloadPlugin,
} from "../../../src/plugins/api.ts";
import { getPluginRuntime, type PluginRuntime } from "../../../src/plugins/runtime/index.ts";
import { STATUS_EVENT_NAME_MAX_CHARS, STATUS_MESSAGE_MAX_CHARS, StatusStore } from "../../../src/plugins/status.ts";
import { CoreTestLoader, ctx, makeWorkspace, writePlugin, writeToolPlugin, type TestWorkspace } from "./helpers.ts";

let t: TestWorkspace;
let runtime: PluginRuntime;

beforeEach(async () => {
  t = makeWorkspace();
  await writeToolPlugin(t.workspace, "echo", "hello", { required: ["events"], optional: ["memory"] });
  await writeToolPlugin(t.workspace, "needs-net", "x", { required: ["http-outbound"] });
  await writeToolPlugin(t.workspace, "sleepy", "z");
  writePlugin(t.workspace, "warned", `[plugin]\nname = "warned"\nversion = "0.0.1"\nshiny = true\n`, new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  const config = ConfigSchema.parse({ plugins: { echo: { grant: ["events"] }, sleepy: { enabled: false } } });
  runtime = getPluginRuntime(t.workspace, t.services, { loaders: [new CoreTestLoader()], config });
  await runtime.start();
});

afterEach(async () => {
  await runtime.stop();
  t.cleanup();
});

async function failure(promise: Promise<unknown>): Promise<PrxError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PrxError) return error;
    throw error;
  }
  throw new Error("expected a PrxError");
}

describe("plugins API handlers", () => {
  test("listPlugins: {plugins, count, generation} with status, permissions, counters and warnings", async () => {
    await runtime.tools.get("echo_tool")!.execute({ q: 1 }, ctx());
    const list = PluginListResponseSchema.parse(listPlugins(runtime));
    expect(list.count).toBe(4);
    expect(list.generation).toBe(1);
    expect(list.plugins.map((p) => [p.name, p.status])).toEqual([
      ["echo", "active"],
      ["needs-net", "error"],
      ["sleepy", "disabled"],
      ["warned", "active"],
    ]);
    const echo = list.plugins[0]!;
    expect(echo.kind).toBe("wasm-module");
    expect(echo.version).toBe("1.0.0");
    expect(echo.permissions).toEqual({ required: ["events"], optional: ["memory"], granted: ["config", "events", "kv", "log"], missing: [] });
    expect(echo.capabilities).toHaveLength(1);
    expect(echo.capabilities[0]).toMatchObject({ type: "tool", name: "echo_tool", live: true, priority: 100 });
    expect(echo.capabilities[0]!.counters).toMatchObject({ invocations: 1, errors: 0, last_error: null });
    expect(echo.capabilities[0]!.counters.last_event?.name).toBe("execute");
    const net = list.plugins[1]!;
    expect(net.message).toContain('requires ungranted permission(s): "http-outbound"');
    expect(net.error_code).toBe("PLUGIN_PERMISSION");
    expect(net.capabilities[0]!.live).toBe(false);
    expect(list.plugins[2]!.message).toBe("disabled in config.toml");
    expect(list.plugins[3]!.warnings.join()).toContain('"plugin.shiny": unknown key');
  });

  test("reloadPlugin: {success, generation, plugins with their outcome}; 404 unknown; 400 when the candidate is bad", async () => {
    const reloaded = PluginReloadResponseSchema.parse(await reloadPlugin(runtime, "echo"));
    expect(reloaded.success).toBe(true);
    expect(reloaded.generation).toBe(2);
    expect(reloaded.plugins.find((p) => p.name === "echo")).toEqual({ name: "echo", outcome: "rebuilt", error: null });
    expect(pluginInfo(runtime, "echo").reload).toEqual({ outcome: "rebuilt", error: null });
    const missing = await failure(reloadPlugin(runtime, "ghost"));
    expect([missing.code, missing.status]).toEqual(["PLUGIN_NOT_FOUND", 404]);
    const bad = await failure(reloadPlugin(runtime, "needs-net"));
    expect([bad.code, bad.status]).toEqual(["PLUGIN_RELOAD", 400]);
    expect(bad.message).toContain("http-outbound");
    expect(listPlugins(runtime).generation).toBe(2);
  });

  test("pluginInfo: one plugin, or 404", () => {
    expect(PluginInfoSchema.parse(pluginInfo(runtime, "echo")).name).toBe("echo");
    const error = (() => {
      try {
        pluginInfo(runtime, "ghost");
      } catch (e) {
        return e as PrxError;
      }
    })();
    expect([error?.code, error?.status]).toEqual(["PLUGIN_NOT_FOUND", 404]);
  });

  test(`status messages are kept up to ${STATUS_MESSAGE_MAX_CHARS} characters`, () => {
    const store = new StatusStore();
    const status = store.for("p", "tool", "t");
    status.error("e".repeat(STATUS_MESSAGE_MAX_CHARS));
    expect(store.get("p", "tool", "t")!.lastError!.message).toHaveLength(STATUS_MESSAGE_MAX_CHARS);
    status.error("e".repeat(STATUS_MESSAGE_MAX_CHARS + 1));
    const clipped = store.get("p", "tool", "t")!.lastError!.message;
    expect(clipped).toHaveLength(STATUS_MESSAGE_MAX_CHARS);
    expect(clipped.endsWith("…")).toBe(true);
    expect(store.get("p", "tool", "t")!.errors).toBe(2);
  });

  test(`an event name is kept up to ${STATUS_EVENT_NAME_MAX_CHARS} characters; one more is cut, ending in …`, () => {
    const store = new StatusStore();
    const status = store.for("p", "hook", "h");
    status.event("n".repeat(STATUS_EVENT_NAME_MAX_CHARS));
    expect(store.get("p", "hook", "h")!.lastEvent!.name).toBe("n".repeat(STATUS_EVENT_NAME_MAX_CHARS));
    status.event("n".repeat(STATUS_EVENT_NAME_MAX_CHARS + 1));
    expect(store.get("p", "hook", "h")!.lastEvent!.name).toBe(`${"n".repeat(STATUS_EVENT_NAME_MAX_CHARS - 1)}…`);
  });
});
