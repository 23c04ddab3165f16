import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigSchema, type Config } from "../../../src/config/schema.ts";
import { PrxError } from "../../../src/core/errors.ts";
import { getPluginRuntime, type PluginRuntime } from "../../../src/plugins/runtime/index.ts";
import { CoreTestLoader, ctx, makeWorkspace, manifest, toolModule, writePlugin, writeToolPlugin, type TestWorkspace } from "./helpers.ts";

let t: TestWorkspace;
let loader: CoreTestLoader;
let config: Config;
let runtime: PluginRuntime;

beforeEach(async () => {
  t = makeWorkspace();
  loader = new CoreTestLoader();
  config = ConfigSchema.parse({});
  runtime = getPluginRuntime(t.workspace, t.services, { loaders: [loader], config: () => config });
  await writeToolPlugin(t.workspace, "echo", "e1");
  await writeToolPlugin(t.workspace, "other", "o1");
  await runtime.start();
});

afterEach(async () => {
  await runtime.stop();
  t.cleanup();
});

async function call(name: string) {
  const tool = runtime.tools.get(name);
  if (!tool) throw new Error(`tool ${name} not listed`);
  return tool.execute({}, ctx());
}

async function reloadError(name?: string, options = {}): Promise<PrxError> {
  try {
    await runtime.reload(name, options);
  } catch (error) {
    if (error instanceof PrxError) return error;
    throw error;
  }
  throw new Error("expected the reload to fail");
}

const outcomes = () => Object.fromEntries(runtime.current().plugins.map((p) => [p.name, p.outcome]));
const breakWasm = (plugin: string) => writeFileSync(join(t.workspace.pluginsDir, plugin, "plugin.wasm"), "not wasm");

describe("a reload rebuilds what it names or what changed and carries the rest over", () => {
  test("reloading echo while other's wasm is broken keeps other serving its previous instance", async () => {
    breakWasm("other");
    expect(await runtime.reload("echo")).toBe(2);
    const other = runtime.current().plugin("other")!;
    expect([other.state, other.outcome]).toEqual(["active", "failed_kept_old"]);
    expect(other.reloadError?.message).toContain("not a WebAssembly");
    expect(await call("other_tool")).toMatchObject({ output: "o1" });
    expect(outcomes()).toEqual({ echo: "rebuilt", other: "failed_kept_old" });
  });

  test("an unchanged plugin keeps its live instance: same object, not loaded again, not released", async () => {
    const before = runtime.current().instance("other");
    const loads = loader.loads;
    await runtime.reload("echo");
    await runtime.settled();
    expect(runtime.current().instance("other")).toBe(before);
    expect(loader.loads).toBe(loads + 1);
    expect(loader.releases).toBe(1);
    expect(outcomes()).toEqual({ echo: "rebuilt", other: "carried_over" });
    expect(await call("other_tool")).toMatchObject({ output: "o1" });
  });

  test("a plugin whose binary, manifest or [plugins.<name>] table changed is rebuilt too", async () => {
    await writeToolPlugin(t.workspace, "other", "o2");
    await runtime.reload("echo");
    expect(outcomes()).toEqual({ echo: "rebuilt", other: "rebuilt" });
    expect(await call("other_tool")).toMatchObject({ output: "o2" });
    writeFileSync(join(t.workspace.pluginsDir, "other", "plugin.toml"), manifest({ name: "other", tools: ["other_tool"], version: "2.0.0" }));
    await runtime.reload("echo");
    expect(outcomes().other).toBe("rebuilt");
    config = ConfigSchema.parse({ plugins: { other: { config: { mode: "new" } } } });
    await runtime.reload("echo");
    expect(outcomes().other).toBe("rebuilt");
    await runtime.reload("echo");
    expect(outcomes().other).toBe("carried_over");
  });

  test("a plugin rebuilt beside an incumbent cannot take its tool name: it keeps its old instance, the incumbent serves on", async () => {
    await writeToolPlugin(t.workspace, "third", "t1");
    writePlugin(t.workspace, "other", manifest({ name: "other", tools: ["echo_tool"] }), await toolModule({ tool: "echo_tool", output: "o2" }));
    await runtime.reload("third");
    expect(outcomes()).toEqual({ echo: "carried_over", other: "failed_kept_old", third: "rebuilt" });
    expect(runtime.current().plugin("other")!.reloadError?.message).toContain("echo_tool");
    expect(await call("echo_tool")).toMatchObject({ output: "e1" });
    expect(await call("other_tool")).toMatchObject({ output: "o1" });
    expect(await call("third_tool")).toMatchObject({ output: "t1" });
  });

  test("a full reload rebuilds every plugin and says so", async () => {
    await runtime.reload(undefined);
    expect(outcomes()).toEqual({ echo: "rebuilt", other: "rebuilt" });
    await runtime.reload("echo", { all: true });
    expect(outcomes()).toEqual({ echo: "rebuilt", other: "rebuilt" });
  });

  test("the named plugin failing refuses the reload; the previous generation keeps serving", async () => {
    breakWasm("echo");
    const error = await reloadError("echo");
    expect([error.code, error.status]).toEqual(["PLUGIN_RELOAD", 400]);
    expect(runtime.current().number).toBe(1);
    expect(await call("echo_tool")).toMatchObject({ output: "e1" });
  });

  test("a reload that would lose an active plugin is refused naming it, unless forced", async () => {
    rmSync(join(t.workspace.pluginsDir, "other"), { recursive: true });
    const error = await reloadError("echo");
    expect([error.code, error.status]).toEqual(["PLUGIN_RELOAD", 409]);
    expect(error.message).toContain('"other" (it is no longer present in');
    expect(await call("other_tool")).toMatchObject({ output: "o1" });
    expect(await runtime.reload("echo", { force: true })).toBe(2);
    expect(runtime.tools.get("other_tool")).toBeUndefined();
  });

  test("a forced reload publishes a failed rebuild as failed instead of keeping the old instance", async () => {
    breakWasm("other");
    await runtime.reload("echo", { force: true });
    expect(runtime.current().plugin("other")!.state).toBe("error");
    expect(runtime.tools.get("other_tool")).toBeUndefined();
  });

  test("disabling a plugin or revoking a grant it requires takes it down: no old instance is kept", async () => {
    config = ConfigSchema.parse({ plugins: { other: { enabled: false } } });
    await runtime.reload("echo");
    expect(runtime.current().plugin("other")!.state).toBe("disabled");
    expect(runtime.tools.get("other_tool")).toBeUndefined();
    writeFileSync(join(t.workspace.pluginsDir, "other", "plugin.toml"), manifest({ name: "other", tools: ["other_tool"], required: ["http-outbound"] }));
    config = ConfigSchema.parse({ plugins: { other: { grant: ["http-outbound"] } } });
    await runtime.reload("other");
    expect(await call("other_tool")).toMatchObject({ output: "o1" });
    config = ConfigSchema.parse({});
    await runtime.reload("echo");
    expect(runtime.current().plugin("other")!.error?.code).toBe("PLUGIN_PERMISSION");
    expect(runtime.tools.get("other_tool")).toBeUndefined();
  });

  test("calls in flight on a carried plugin finish on the generation that started them", async () => {
    let open!: () => void;
    loader.gate = () => new Promise<void>((resolve) => (open = resolve));
    const running = call("other_tool");
    loader.gate = null;
    const first = runtime.current();
    await runtime.reload("echo");
    expect(first.inFlight).toBe(1);
    open();
    expect(await running).toMatchObject({ output: "o1" });
    await runtime.settled();
    expect(first.isReleased).toBe(true);
    expect(loader.releasedWhileBusy).toBe(false);
    expect(await call("other_tool")).toMatchObject({ output: "o1" });
    expect(runtime.current().inFlight).toBe(0);
  });

  test("a refused candidate leaves the carried plugins owned and counted by the serving generation", async () => {
    breakWasm("echo");
    await reloadError("echo");
    await runtime.settled();
    expect(loader.releases).toBe(0);
    expect(runtime.current().instance("other")).toBeDefined();
    expect(await call("other_tool")).toMatchObject({ output: "o1" });
  });
});
