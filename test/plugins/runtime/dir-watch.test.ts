import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, renameSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DiscoveryCache } from "../../../src/plugins/discovery-cache.ts";
import type { DiscoveredOk, DiscoveredPlugin } from "../../../src/plugins/discovered.ts";
import { discoverPlugins } from "../../../src/plugins/discovery.ts";
import { makeWorkspace, manifest, writePlugin, type TestWorkspace } from "./helpers.ts";

const CORE_HEADER = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
const COMPONENT_HEADER = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00]);

let t: TestWorkspace;
let cache: DiscoveryCache;
beforeEach(async () => {
  t = makeWorkspace();
  cache = new DiscoveryCache();
  await cache.startWatching();
});
afterEach(() => {
  cache.close();
  t.cleanup();
});

const ok = (found: DiscoveredPlugin[], dir: string) => {
  const plugin = found.find((p) => p.dirName === dir)!;
  expect(plugin.ok).toBe(true);
  return plugin as DiscoveredOk;
};
const discover = () => discoverPlugins(t.workspace.pluginsDir, cache);

describe("plugin directory watch (inotify)", () => {
  test("after a discovery every plugin directory is quiet and handed out as found, the same object", () => {
    const dir = writePlugin(t.workspace, "a", manifest({ name: "a", tools: ["a_tool"] }), CORE_HEADER);
    const first = ok(discover(), "a");
    expect(cache.watch!.quiet(dir)).toBe(true);
    expect(ok(discover(), "a")).toBe(first);
    expect(ok(discover(), "a")).toBe(first);
  });

  test("a manifest rewritten in place with the same size and times is read again", () => {
    const dir = writePlugin(t.workspace, "a", manifest({ name: "a", tools: ["tool_1"] }), CORE_HEADER);
    const first = ok(discover(), "a");
    writeFileSync(join(dir, "plugin.toml"), manifest({ name: "a", tools: ["tool_2"] }));
    // the times put back: a stamp alone would not tell
    utimesSync(join(dir, "plugin.toml"), 1_000_000, 1_000_000);
    const again = ok(discover(), "a");
    expect(again).not.toBe(first);
    expect(again.manifest.capabilities[0]!.name).toBe("tool_2");
    expect(cache.watch!.quiet(dir)).toBe(true);
  });

  test("a wasm file rewritten to another kind is detected again", () => {
    const dir = writePlugin(t.workspace, "a", manifest({ name: "a" }), CORE_HEADER);
    expect(ok(discover(), "a").kind).toBe("wasm-module");
    writeFileSync(join(dir, "plugin.wasm"), COMPONENT_HEADER);
    expect(ok(discover(), "a").kind).toBe("wasm-component");
  });

  test("a plugin directory replaced under the same name is read again", () => {
    writePlugin(t.workspace, "a", manifest({ name: "a", tools: ["old_tool"] }), CORE_HEADER);
    ok(discover(), "a");
    const staged = join(t.workspace.pluginsDir, ".staged");
    mkdirSync(staged);
    writeFileSync(join(staged, "plugin.toml"), manifest({ name: "a", tools: ["new_tool"] }));
    writeFileSync(join(staged, "plugin.wasm"), CORE_HEADER);
    rmSync(join(t.workspace.pluginsDir, "a"), { recursive: true });
    renameSync(staged, join(t.workspace.pluginsDir, "a"));
    expect(ok(discover(), "a").manifest.capabilities[0]!.name).toBe("new_tool");
  });

  test("a plugin whose wasm file is in a subdirectory is never quiet: its files are checked every time", () => {
    const dir = writePlugin(t.workspace, "a", manifest({ name: "a", wasm: "build/plugin.wasm" }));
    mkdirSync(join(dir, "build"));
    writeFileSync(join(dir, "build", "plugin.wasm"), CORE_HEADER);
    expect(ok(discover(), "a").kind).toBe("wasm-module");
    expect(cache.watch!.quiet(dir)).toBe(false);
    writeFileSync(join(dir, "build", "plugin.wasm"), COMPONENT_HEADER);
    expect(ok(discover(), "a").kind).toBe("wasm-component");
  });

  test("a closed watch leaves discovery to the stamps", () => {
    const dir = writePlugin(t.workspace, "a", manifest({ name: "a", tools: ["tool_1"] }), CORE_HEADER);
    ok(discover(), "a");
    cache.close();
    expect(cache.watch).toBeNull();
    writeFileSync(join(dir, "plugin.toml"), manifest({ name: "a", tools: ["tool_3"] }));
    expect(ok(discover(), "a").manifest.capabilities[0]!.name).toBe("tool_3");
  });
});
