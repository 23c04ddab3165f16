import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DiscoveryCache } from "../../../src/plugins/discovery-cache.ts";
import type { DiscoveredOk, DiscoveredPlugin } from "../../../src/plugins/discovered.ts";
import { discoverPlugins, WASM_MAX_BYTES } from "../../../src/plugins/discovery.ts";
import { makeWorkspace, manifest, writePlugin, type TestWorkspace } from "./helpers.ts";

const CORE_HEADER = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
const COMPONENT_HEADER = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00]);

let t: TestWorkspace;
beforeEach(() => (t = makeWorkspace()));
afterEach(() => t.cleanup());

const ok = (found: DiscoveredPlugin[], name: string) => {
  const plugin = found.find((p) => p.name === name || p.dirName === name)!;
  expect(plugin.ok).toBe(true);
  return plugin as DiscoveredOk;
};
const errorOf = (found: DiscoveredPlugin[], dir: string) => {
  const plugin = found.find((p) => p.dirName === dir)!;
  expect(plugin.ok).toBe(false);
  return plugin.ok ? "" : plugin.error.message;
};

describe("discovery cache", () => {
  test("an unchanged manifest is not parsed again: the next discovery returns the same parse", () => {
    writePlugin(t.workspace, "a", manifest({ name: "a", tools: ["a_tool"] }), CORE_HEADER);
    const cache = new DiscoveryCache();
    const first = ok(discoverPlugins(t.workspace.pluginsDir, cache), "a");
    const second = ok(discoverPlugins(t.workspace.pluginsDir, cache), "a");
    expect(second.manifest).toBe(first.manifest);
    expect(second).toEqual(first);
    // without a cache every discovery parses
    expect(ok(discoverPlugins(t.workspace.pluginsDir), "a").manifest).not.toBe(first.manifest);
  });

  test("a rewritten manifest of the same size is parsed again", () => {
    const dir = writePlugin(t.workspace, "a", manifest({ name: "a", tools: ["tool_1"] }), CORE_HEADER);
    const cache = new DiscoveryCache();
    expect(ok(discoverPlugins(t.workspace.pluginsDir, cache), "a").manifest.capabilities[0]!.name).toBe("tool_1");
    writeFileSync(join(dir, "plugin.toml"), manifest({ name: "a", tools: ["tool_2"] }));
    expect(ok(discoverPlugins(t.workspace.pluginsDir, cache), "a").manifest.capabilities[0]!.name).toBe("tool_2");
  });

  test("a wasm file rewritten to another kind is detected again", () => {
    const dir = writePlugin(t.workspace, "a", manifest({ name: "a" }), CORE_HEADER);
    const cache = new DiscoveryCache();
    expect(ok(discoverPlugins(t.workspace.pluginsDir, cache), "a").kind).toBe("wasm-module");
    writeFileSync(join(dir, "plugin.wasm"), COMPONENT_HEADER);
    expect(ok(discoverPlugins(t.workspace.pluginsDir, cache), "a").kind).toBe("wasm-component");
  });

  test("a cached manifest or wasm file replaced by a symlink is refused as before", () => {
    const a = writePlugin(t.workspace, "a", manifest({ name: "a" }), CORE_HEADER);
    const b = writePlugin(t.workspace, "b", manifest({ name: "b" }), CORE_HEADER);
    const cache = new DiscoveryCache();
    const found = discoverPlugins(t.workspace.pluginsDir, cache);
    ok(found, "a");
    ok(found, "b");
    writeFileSync(join(t.workspace.root, "elsewhere.toml"), manifest({ name: "a" }));
    rmSync(join(a, "plugin.toml"));
    symlinkSync(join(t.workspace.root, "elsewhere.toml"), join(a, "plugin.toml"));
    writeFileSync(join(t.workspace.root, "elsewhere.wasm"), CORE_HEADER);
    rmSync(join(b, "plugin.wasm"));
    symlinkSync(join(t.workspace.root, "elsewhere.wasm"), join(b, "plugin.wasm"));
    const again = discoverPlugins(t.workspace.pluginsDir, cache);
    expect(errorOf(again, "a")).toContain("plugin.toml is a symlink");
    expect(errorOf(again, "b")).toContain("wasm file is a symlink");
  });

  test("a cached wasm file grown past the limit is refused", () => {
    const dir = writePlugin(t.workspace, "a", manifest({ name: "a" }), CORE_HEADER);
    const cache = new DiscoveryCache();
    ok(discoverPlugins(t.workspace.pluginsDir, cache), "a");
    truncateSync(join(dir, "plugin.wasm"), WASM_MAX_BYTES + 1); // sparse: the header stays
    expect(errorOf(discoverPlugins(t.workspace.pluginsDir, cache), "a")).toContain(`larger than the limit of ${WASM_MAX_BYTES} bytes`);
  });

  test("it keeps only what the last discovery read", () => {
    writePlugin(t.workspace, "a", manifest({ name: "a" }), CORE_HEADER);
    writePlugin(t.workspace, "b", manifest({ name: "b" }), CORE_HEADER);
    const cache = new DiscoveryCache();
    discoverPlugins(t.workspace.pluginsDir, cache);
    expect([cache.manifests.size, cache.headers.size]).toEqual([2, 2]);
    rmSync(join(t.workspace.pluginsDir, "b"), { recursive: true });
    discoverPlugins(t.workspace.pluginsDir, cache);
    expect([cache.manifests.size, cache.headers.size]).toEqual([1, 1]);
  });
});
