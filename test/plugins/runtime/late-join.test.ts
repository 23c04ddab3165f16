import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { ConfigSchema } from "../../../src/config/schema.ts";
import { getPluginRuntime, type PluginRuntime } from "../../../src/plugins/runtime/index.ts";
import type { PluginLoader } from "../../../src/plugins/types.ts";
import { CoreTestLoader, ctx, makeWorkspace, writeToolPlugin, type TestWorkspace } from "./helpers.ts";

// Plugins whose load waits for the test to open their gate: a plugin slow to become ready, without timing.
class GatedLoader implements PluginLoader {
  readonly kinds = ["wasm-module"] as const;
  readonly inner = new CoreTestLoader();
  private readonly gates = new Map<string, { opened: Promise<void>; open: () => void }>();

  hold(name: string): () => void {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    this.gates.set(name, { opened, open });
    return open;
  }

  async load(plugin: Parameters<PluginLoader["load"]>[0], host: Parameters<PluginLoader["load"]>[1]) {
    const gate = this.gates.get(plugin.name);
    if (gate) {
      this.gates.delete(plugin.name);
      await gate.opened;
    }
    return this.inner.load(plugin);
  }
}

let t: TestWorkspace;
let loader: GatedLoader;
let runtime: PluginRuntime;

beforeEach(async () => {
  t = makeWorkspace();
  loader = new GatedLoader();
  runtime = getPluginRuntime(t.workspace, t.services, { loaders: [loader], config: () => ConfigSchema.parse({}), joinAfterMs: 20 });
  await writeToolPlugin(t.workspace, "fast", "f1");
  await writeToolPlugin(t.workspace, "slow", "s1");
});

afterEach(async () => {
  await runtime.stop();
  t.cleanup();
});

const call = (name: string) => runtime.tools.get(name)?.execute({}, ctx());
/** Resolves once a generation newer than `after` is published (a plugin joined). */
const nextGeneration = (after: number) =>
  new Promise<number>((resolve) => {
    const off = runtime.onGeneration((next) => {
      if (next.number > after) {
        off();
        resolve(next.number);
      }
    });
  });

describe("plugins that are slow to become ready do not hold the others", () => {
  test("start serves what is ready; the late plugin is starting, then joins the next generation", async () => {
    const open = loader.hold("slow");
    const first = await runtime.start();
    expect(first.plugin("slow")!.state).toBe("starting");
    expect(await call("fast_tool")).toMatchObject({ output: "f1" });
    expect(runtime.tools.get("slow_tool")).toBeUndefined();
    const joined = nextGeneration(first.number);
    open();
    expect(await joined).toBe(2);
    expect(runtime.current().plugin("slow")!.state).toBe("active");
    expect(await call("slow_tool")).toMatchObject({ output: "s1" });
    expect(runtime.current().instance("fast")).toBe(first.instance("fast"));
  });

  test("two late plugins join one after the other; the second is built after the first's generation replaced its own", async () => {
    await writeToolPlugin(t.workspace, "later", "l1");
    const openSlow = loader.hold("slow");
    const openLater = loader.hold("later");
    const first = await runtime.start();
    expect([first.plugin("slow")!.state, first.plugin("later")!.state]).toEqual(["starting", "starting"]);
    let joined = nextGeneration(first.number);
    openSlow();
    expect(await joined).toBe(2);
    await runtime.settled(); // generation 1, which started both loads, is released
    joined = nextGeneration(2);
    openLater();
    expect(await joined).toBe(3);
    const later = runtime.current().plugin("later")!;
    expect([later.state, later.error?.message ?? null]).toEqual(["active", null]);
    expect(await call("later_tool")).toMatchObject({ output: "l1" });
    expect(await call("slow_tool")).toMatchObject({ output: "s1" });
  });

  test("a reload of one plugin is not held by another that is slow to rebuild: its old instance serves meanwhile", async () => {
    await runtime.start();
    await writeToolPlugin(t.workspace, "slow", "s2");
    const open = loader.hold("slow");
    expect(await runtime.reload("fast")).toBe(2);
    const during = runtime.current().plugin("slow")!;
    expect([during.state, during.outcome]).toEqual(["active", "rebuilding"]);
    expect(await call("slow_tool")).toMatchObject({ output: "s1" });
    const joined = nextGeneration(2);
    open();
    await joined;
    await runtime.settled();
    expect(await call("slow_tool")).toMatchObject({ output: "s2" });
    expect(runtime.current().plugin("slow")!.outcome).toBe("rebuilt");
  });

  test("the plugin a reload names is waited for", async () => {
    await runtime.start();
    const open = loader.hold("slow");
    const reloading = runtime.reload("slow");
    setTimeout(open, 50);
    expect(await reloading).toBe(2);
    expect(runtime.current().plugin("slow")!.state).toBe("active");
  });

  test("a late plugin replaced by a newer build is released, not joined", async () => {
    const open = loader.hold("slow");
    await runtime.start();
    expect(await runtime.reload("slow")).toBe(2);
    const releases = loader.inner.releases;
    open();
    for (let i = 0; i < 200 && loader.inner.releases === releases; i++) await Bun.sleep(5);
    expect(loader.inner.releases).toBe(releases + 1);
    expect(runtime.current().number).toBe(2);
  });
});
