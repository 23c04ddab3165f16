import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { ConfigSchema, type Config } from "../../../src/config/schema.ts";
import { PrxError } from "../../../src/core/errors.ts";
import { DiscoveryCache } from "../../../src/plugins/discovery-cache.ts";
import type { DiscoveredOk } from "../../../src/plugins/discovered.ts";
import { discoverPlugins } from "../../../src/plugins/discovery.ts";
import { getPluginRuntime, type PluginRuntime } from "../../../src/plugins/runtime/index.ts";
import { VersionedMap } from "../../../src/plugins/versioned-map.ts";
import { CoreTestLoader, ctx, makeWorkspace, manifest, toolModule, writePlugin, writeToolPlugin, type TestWorkspace } from "./helpers.ts";

const NAMES = ["a", "b", "c", "d"];
const CORE_HEADER = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);

let t: TestWorkspace;
let loader: CoreTestLoader;
let config: Config;
let runtime: PluginRuntime;

beforeEach(async () => {
  t = makeWorkspace();
  loader = new CoreTestLoader();
  config = ConfigSchema.parse({});
  runtime = getPluginRuntime(t.workspace, t.services, { loaders: [loader], config: () => config });
  for (const name of NAMES) await writeToolPlugin(t.workspace, name, `${name} out`);
  await runtime.start();
});

afterEach(async () => {
  await runtime.stop();
  t.cleanup();
});

async function call(tool: string) {
  const adapter = runtime.tools.get(tool);
  if (!adapter) throw new Error(`tool ${tool} not listed`);
  return adapter.execute({}, ctx());
}

/** Every index of the current generation answers for `served` (plugin -> its tool) and for nothing else. */
async function expectServing(served: Record<string, string>) {
  const generation = runtime.current();
  expect(generation.toolSpecs().map((s) => s.name).sort()).toEqual(Object.values(served).sort());
  for (const [plugin, tool] of Object.entries(served)) {
    expect(generation.tool(tool)?.plugin).toBe(plugin);
    expect(generation.adaptersOf(plugin).map((a) => a.capability.name)).toEqual([tool]);
    expect(generation.plugin(plugin)?.state).toBe("active");
    expect(await call(tool)).toMatchObject({ success: true });
  }
  expect(generation.adapters.tool.map((a) => a.plugin)).toEqual(Object.keys(served).sort());
}

describe("a reload of one plugin changes only that plugin's entries", () => {
  test("the other plugins keep their records, instances and adapters as the same objects; every index answers", async () => {
    const first = runtime.current();
    await runtime.reload("a");
    const second = runtime.current();
    await runtime.reload("a");
    const third = runtime.current();
    for (const name of ["b", "c", "d"]) {
      // carried over once, a record is the very object in every later generation
      expect(third.plugin(name)).toBe(second.plugin(name)!);
      expect(third.plugin(name)!.outcome).toBe("carried_over");
      expect(third.instance(name)).toBe(first.instance(name)!);
      expect(third.adaptersOf(name)).toBe(first.adaptersOf(name));
    }
    expect(third.plugin("a")!.outcome).toBe("rebuilt");
    expect(third.instance("a")).not.toBe(second.instance("a")!);
    // each generation still reads as it was built, whichever was read last
    expect(first.tool("a_tool")).toBe(first.adaptersOf("a")[0] as never);
    expect(second.instance("a")).not.toBe(first.instance("a")!);
    expect(third.tool("a_tool")).toBe(third.adaptersOf("a")[0] as never);
    await runtime.settled();
    expect([loader.loads, loader.releases]).toEqual([6, 2]);
    await expectServing({ a: "a_tool", b: "b_tool", c: "c_tool", d: "d_tool" });
    // the lists a reload of a tool did not touch are the previous generation's
    expect(third.adapters.hook).toBe(second.adapters.hook);
    expect(third.middleware).toBe(second.middleware);
  });

  test("a carried plugin's calls count on the generation serving when they start; the replaced one's drain on its own", async () => {
    const first = runtime.current();
    const waiting: (() => void)[] = [];
    const hold = () => new Promise<void>((resolve) => waiting.push(resolve));
    loader.gate = hold;
    const before = [call("a_tool"), call("b_tool")];
    await Bun.sleep(0);
    expect(first.inFlight).toBe(2);
    loader.gate = null;
    await runtime.reload("a");
    const second = runtime.current();
    loader.gate = hold;
    const after = call("b_tool");
    await Bun.sleep(0);
    // started on the carried instance after the swap: counted on the second generation, not the first
    expect([first.inFlight, second.inFlight]).toEqual([2, 1]);
    loader.gate = null;
    for (const resolve of waiting) resolve();
    expect(await Promise.all([...before, after])).toMatchObject([{ success: true }, { success: true }, { success: true }]);
    expect([first.inFlight, second.inFlight]).toEqual([0, 0]);
    await runtime.settled();
    expect(loader.releasedWhileBusy).toBe(false);
    expect(loader.releases).toBe(1);
  });

  test("a plugin added, removed, renamed: the indexes follow, the plugin removed is released", async () => {
    await writeToolPlugin(t.workspace, "e", "e out");
    await runtime.reload("e");
    await expectServing({ a: "a_tool", b: "b_tool", c: "c_tool", d: "d_tool", e: "e_tool" });
    const removed = runtime.current().instance("b");
    rmSync(`${t.workspace.pluginsDir}/b`, { recursive: true });
    await runtime.reload("a", { force: true });
    await runtime.settled();
    expect(runtime.current().plugin("b")).toBeUndefined();
    expect(runtime.current().instance("b")).toBeUndefined();
    expect(runtime.tools.get("b_tool")).toBeUndefined();
    await expect(removed!.invoke({ type: "tool", name: "b_tool" }, "get-spec", [])).rejects.toThrow("invoke after release");
    // the directory c now holds a plugin named c2 (same tool)
    writePlugin(t.workspace, "c", manifest({ name: "c2", tools: ["c_tool"] }), await toolModule({ tool: "c_tool", output: "c2 out" }));
    await runtime.reload("c2", { force: true });
    expect(runtime.current().plugin("c")).toBeUndefined();
    await expectServing({ a: "a_tool", c2: "c_tool", d: "d_tool", e: "e_tool" });
    expect(await call("c_tool")).toMatchObject({ output: "c2 out" });
  });

  test("a plugin rewritten to claim another's tool is in conflict; the incumbent keeps it, the old version serves on", async () => {
    writePlugin(t.workspace, "d", manifest({ name: "d", tools: ["a_tool"] }), await toolModule({ tool: "a_tool", output: "d out" }));
    let refused: unknown;
    await runtime.reload("d").catch((error) => (refused = error));
    expect(refused).toBeInstanceOf(PrxError);
    expect((refused as PrxError).message).toContain('tool "a_tool" is served by plugin "a"');
    // not named, d is rebuilt because its files changed; in conflict, its previous instance serves on
    await runtime.reload("b");
    const d = runtime.current().plugin("d")!;
    expect([d.state, d.outcome]).toEqual(["active", "failed_kept_old"]);
    expect(d.reloadError?.message).toContain('is served by plugin "a"');
    await expectServing({ a: "a_tool", b: "b_tool", c: "c_tool", d: "d_tool" });
    expect(await call("a_tool")).toMatchObject({ output: "a out" });
    expect(await call("d_tool")).toMatchObject({ output: "d out" });
  });
});

describe("discovery starts from its last listing while plugins/ is quiet", () => {
  test("nothing changed: the same array; one plugin changed: only its position is new; a directory added: listed again", () => {
    const cache = new DiscoveryCache();
    return cache.startWatching().then(() => {
      try {
        if (!cache.watch) return; // no inotify here: every discovery lists plugins/ (the other tests cover it)
        const dir = t.workspace.pluginsDir;
        const first = discoverPlugins(dir, cache);
        const second = discoverPlugins(dir, cache);
        expect(second).toBe(first);
        expect(cache.changes(first, second)).toEqual([]);
        writePlugin(t.workspace, "b", manifest({ name: "b", version: "2.0.0", tools: ["b_tool"] }));
        const third = discoverPlugins(dir, cache);
        expect(third).not.toBe(second);
        expect(cache.changes(second, third)).toEqual([1]);
        expect(third.filter((p, i) => p !== second[i]).map((p) => p.name)).toEqual(["b"]);
        expect((third[1] as DiscoveredOk).manifest.plugin.version).toBe("2.0.0");
        writePlugin(t.workspace, "aa", manifest({ name: "aa", tools: ["aa_tool"] }), CORE_HEADER);
        const fourth = discoverPlugins(dir, cache);
        expect(fourth.map((p) => p.name)).toEqual(["a", "aa", "b", "c", "d"]);
        expect(cache.changes(third, fourth)).toBeUndefined();
        expect(discoverPlugins(dir, cache)).toBe(fourth);
      } finally {
        cache.close();
      }
    });
  });
});

describe("VersionedMap", () => {
  test("every version reads as it was made, in any order, branches included", () => {
    const v0 = new VersionedMap<string, number>([
      ["a", 1],
      ["b", 2],
    ]);
    const v1 = v0.with([["a", 10]]);
    const v2 = v1.with([
      ["b", undefined],
      ["c", 3],
    ]);
    const branch = v0.with([["a", 20]]);
    expect(v2.get("a")).toBe(10);
    expect(v0.get("a")).toBe(1);
    expect(v2.has("b")).toBe(false);
    expect(v1.get("b")).toBe(2);
    expect(branch.get("a")).toBe(20);
    expect(v2.entries().sort()).toEqual([
      ["a", 10],
      ["c", 3],
    ]);
    expect(v1.get("a")).toBe(10);
    expect([v0.size, v1.size, v2.size, branch.size]).toEqual([2, 2, 2, 2]);
    expect(v0.entries().sort()).toEqual([
      ["a", 1],
      ["b", 2],
    ]);
    expect(v0.with([]).get("b")).toBe(2);
  });
});
