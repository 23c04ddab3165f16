import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256Hex } from "../../../src/core/ids.ts";
import { createLogger } from "../../../src/core/logger.ts";
import type { AdmittedPlugin, PluginInstance } from "../../../src/plugins/types.ts";
import { openWasmPlugin } from "../../../src/plugins/wasm/loader.ts";
import { declarationCache, declarationKey } from "../../../src/plugins/wasm/on-demand/index.ts";
import { REMOTE_DEFAULT_IDLE_STOP_MS } from "../../../src/plugins/remote/limits.ts";
import { cachedArtifactCount, compileCount } from "../../../src/plugins/wasm/artifact-cache.ts";
import { sandboxWorkerPool, WASM_IDLE_STOP_MS } from "../../../src/plugins/wasm/index.ts";
import { toolModule } from "../runtime/helpers.ts";
import { fakeTimers } from "../../helpers/fake-timers.ts";
import { failure, makeHost, removeDir } from "./helpers.ts";

const th = makeHost();
const roots: string[] = [];
afterAll(() => {
  th.close();
  for (const root of roots) removeDir(root);
});

async function toolPlugin(name: string, options: { unresolvedImport?: boolean } = {}): Promise<AdmittedPlugin> {
  const dir = mkdtempSync(join(tmpdir(), `prx-lazy-wasm-${name}-`));
  roots.push(dir);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "plugin.wasm"), await toolModule({ tool: `${name}_tool`, output: `${name} says hi`, ...options }));
  return {
    name,
    version: "0.1.0",
    kind: "wasm-module",
    dir,
    entryPath: join(dir, "plugin.wasm"),
    capabilities: [{ type: "tool", name: `${name}_tool` }],
    resources: { maxMemoryMb: 16, maxExecutionTimeMs: 5000, maxHttpRequestsPerCall: 1, maxKvStorageMb: 1, maxFuel: null },
    granted: new Set(["log", "config", "kv"]),
    config: {},
    httpAllowlist: [],
  };
}

const ref = (plugin: AdmittedPlugin) => plugin.capabilities[0]!;

/** Load the plugin once as a generation does (its adapter asks get-spec), so its declarations are cached. */
async function warm(plugin: AdmittedPlugin): Promise<void> {
  const instance = await openWasmPlugin(plugin, th.host);
  await instance.invoke(ref(plugin), "get-spec", []);
  await instance.release();
}
const tenants = () => sandboxWorkerPool.stats().tenants;

describe("a WASM plugin started on its first call", () => {
  test("the idle stop is the remote plugins' default idle_stop_ms", () => {
    expect(WASM_IDLE_STOP_MS).toBe(REMOTE_DEFAULT_IDLE_STOP_MS);
  });

  test("a cold load runs the guest and caches its declarations; a warm one starts nothing until a call", async () => {
    const plugin = await toolPlugin("cold");
    const clock = fakeTimers();
    const first = (await openWasmPlugin(plugin, th.host, { timers: clock.timers })) as PluginInstance;
    expect(first.runState?.()).toBe("running");
    const spec = await first.invoke(ref(plugin), "get-spec", []);
    expect(spec).toMatchObject({ name: "cold_tool" });
    // stopped after the idle time without a call, not before
    clock.advance(WASM_IDLE_STOP_MS - 1);
    expect(first.runState?.()).toBe("running");
    clock.advance(1);
    expect(first.runState?.()).toBe("idle");
    expect(clock.pending()).toBe(0);
    await first.release();

    const before = tenants();
    const second = await openWasmPlugin(plugin, th.host, { timers: clock.timers });
    expect(second.runState?.()).toBe("idle");
    expect(await second.invoke(ref(plugin), "get-spec", [])).toEqual(spec);
    expect(second.runState?.()).toBe("idle");
    expect(tenants()).toBe(before);
    expect(await second.invoke(ref(plugin), "execute", ["{}"])).toMatchObject({ success: true, output: "cold says hi" });
    expect(second.runState?.()).toBe("running");
    expect(tenants()).toBe(before + 1);
    await second.release();
    expect(tenants()).toBe(before);
  });

  test("concurrent first calls share one start, and a call after the idle stop starts it again", async () => {
    const plugin = await toolPlugin("racing");
    const clock = fakeTimers();
    await warm(plugin);
    const instance = await openWasmPlugin(plugin, th.host, { timers: clock.timers });
    const before = tenants();
    const calls = Array.from({ length: 8 }, () => instance.invoke(ref(plugin), "execute", ["{}"]));
    expect(instance.runState?.()).toBe("starting");
    for (const result of await Promise.all(calls)) expect(result).toMatchObject({ output: "racing says hi" });
    expect(tenants()).toBe(before + 1);
    clock.advance(WASM_IDLE_STOP_MS);
    expect(instance.runState?.()).toBe("idle");
    await Bun.sleep(0);
    expect(await instance.invoke(ref(plugin), "execute", ["{}"])).toMatchObject({ output: "racing says hi" });
    expect(tenants()).toBe(before + 1);
    await instance.release();
  });

  test("a guest stopped for being idle keeps no compiled code in the host; its next call prepares it again and answers", async () => {
    const plugin = await toolPlugin("dropped");
    const clock = fakeTimers();
    await warm(plugin);
    const instance = await openWasmPlugin(plugin, th.host, { timers: clock.timers });
    const held = cachedArtifactCount();
    const compiled = compileCount();
    expect(await instance.invoke(ref(plugin), "execute", ["{}"])).toMatchObject({ output: "dropped says hi" });
    expect(cachedArtifactCount()).toBe(held + 1);
    expect(compileCount()).toBe(compiled + 1);
    clock.advance(WASM_IDLE_STOP_MS);
    expect(instance.runState?.()).toBe("idle");
    await Bun.sleep(0);
    expect(cachedArtifactCount()).toBe(held);
    expect(await instance.invoke(ref(plugin), "execute", ["{}"])).toMatchObject({ output: "dropped says hi" });
    expect(compileCount()).toBe(compiled + 2);
    expect(cachedArtifactCount()).toBe(held + 1);
    await instance.release();
    expect(cachedArtifactCount()).toBe(held);
  });

  test("a call keeps the guest running: the idle time counts from the last call", async () => {
    const plugin = await toolPlugin("busy");
    const clock = fakeTimers();
    const instance = await openWasmPlugin(plugin, th.host, { timers: clock.timers });
    clock.advance(WASM_IDLE_STOP_MS / 2);
    await instance.invoke(ref(plugin), "execute", ["{}"]);
    clock.advance(WASM_IDLE_STOP_MS / 2);
    expect(instance.runState?.()).toBe("running");
    clock.advance(WASM_IDLE_STOP_MS / 2);
    expect(instance.runState?.()).toBe("idle");
    await instance.release();
  });

  test("a guest that fails its lazy start fails the call with a PrxError naming the plugin; the next call tries again", async () => {
    const plugin = await toolPlugin("broken", { unresolvedImport: true });
    const key = declarationKey(plugin, sha256Hex(readFileSync(plugin.entryPath)));
    const spec = { name: "broken_tool", description: "d", parametersSchema: "{}" };
    declarationCache(th.host.workspace.cacheDir, createLogger("test")).write("broken", key, { "tool/broken_tool/get-spec": spec });
    const instance = await openWasmPlugin(plugin, th.host);
    expect(instance.runState?.()).toBe("idle");
    for (let i = 0; i < 2; i++) {
      const error = await failure(instance.invoke(ref(plugin), "execute", ["{}"]));
      expect(error.message).toContain("plugin broken failed to start on its first call");
      expect(instance.runState?.()).toBe("idle");
    }
    await instance.release();
  });

  test("a wasm file changed since the load is not started in its place", async () => {
    const plugin = await toolPlugin("changed");
    await warm(plugin);
    const instance = await openWasmPlugin(plugin, th.host);
    writeFileSync(plugin.entryPath, await toolModule({ tool: "changed_tool", output: "other" }));
    const error = await failure(instance.invoke(ref(plugin), "execute", ["{}"]));
    expect(error.message).toContain("changed since the plugin was loaded");
    expect(error.hint).toContain("prx plugins reload changed");
    await instance.release();
  });

  test("a released plugin refuses calls, and a release waits for the call starting it", async () => {
    const plugin = await toolPlugin("released");
    await warm(plugin);
    const instance = await openWasmPlugin(plugin, th.host);
    const call = instance.invoke(ref(plugin), "execute", ["{}"]);
    const released = instance.release();
    expect(await call).toMatchObject({ output: "released says hi" });
    await released;
    expect((await failure(instance.invoke(ref(plugin), "execute", ["{}"]))).code).toBe("PLUGIN_NOT_FOUND");
  });

  test("declarations cached under other settings are not used", async () => {
    const plugin = await toolPlugin("settings");
    await warm(plugin);
    const changed = await openWasmPlugin({ ...plugin, config: { mode: "other" } }, th.host);
    expect(changed.runState?.()).toBe("running");
    await changed.release();
  });
});
