import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigSchema, type Config } from "../../../src/config/schema.ts";
import { isPrxError, PrxError } from "../../../src/core/errors.ts";
import { getPluginRuntime, type PluginRuntime } from "../../../src/plugins/runtime/index.ts";
import { PLUGINS_DIR_MAX_ENTRIES } from "../../../src/plugins/discovery.ts";
import { CoreTestLoader, ctx, makeWorkspace, manifest, toolModule, writePlugin, writeToolPlugin, type TestWorkspace } from "./helpers.ts";

let t: TestWorkspace;
let loader: CoreTestLoader;
let config: Config;
let runtime: PluginRuntime;

function open(): PluginRuntime {
  return getPluginRuntime(t.workspace, t.services, { loaders: [loader], config: () => config });
}

async function reloadError(name?: string): Promise<PrxError> {
  try {
    await runtime.reload(name);
  } catch (error) {
    if (error instanceof PrxError) return error;
    throw error;
  }
  throw new Error("expected the reload to fail");
}

async function callTool(name: string) {
  const tool = runtime.tools.get(name);
  if (!tool) throw new Error(`tool ${name} not listed`);
  return tool.execute({}, ctx());
}

beforeEach(() => {
  t = makeWorkspace();
  loader = new CoreTestLoader();
  config = ConfigSchema.parse({});
  runtime = open();
});

afterEach(async () => {
  await runtime.stop();
  t.cleanup();
});

describe("plugin runtime", () => {
  test("start builds generation 1 and serves tools through the stable router, counting invocations", async () => {
    await writeToolPlugin(t.workspace, "echo", "v1");
    expect((await runtime.start()).number).toBe(1);
    expect(runtime.tools.list().map((s) => s.name)).toEqual(["echo_tool"]);
    expect(runtime.tools.list()[0]!.parameters).toEqual({ type: "object", properties: {} });
    expect(await callTool("echo_tool")).toEqual({ success: true, output: "v1", error: null });
    const counters = runtime.status.get("echo", "tool", "echo_tool")!;
    expect(counters.invocations).toBe(1);
    expect(counters.errors).toBe(0);
    expect(counters.lastEvent?.name).toBe("execute");
    expect(counters.lastDurationMs).not.toBeNull();
  });

  test("missing sensitive grants: error status naming them, no adapter; granting and reloading activates it", async () => {
    await writeToolPlugin(t.workspace, "fetcher", "ok", { required: ["http-outbound", "kv", "memory"] });
    await writeToolPlugin(t.workspace, "plain", "ok");
    const gen = await runtime.start();
    const record = gen.plugin("fetcher")!;
    expect(record.state).toBe("error");
    expect(record.error?.code).toBe("PLUGIN_PERMISSION");
    expect(record.error?.message).toContain('"http-outbound", "memory"');
    expect(record.permissions.missing).toEqual(["http-outbound", "memory"]);
    expect(gen.adaptersOf("fetcher")).toEqual([]);
    expect(gen.instance("fetcher")).toBeUndefined();
    expect(runtime.tools.list().map((s) => s.name)).toEqual(["plain_tool"]);
    expect(loader.loads).toBe(1);

    config = ConfigSchema.parse({ plugins: { fetcher: { grant: ["http-outbound", "memory"] } } });
    expect(await runtime.reload("fetcher")).toBe(2);
    expect(runtime.current().plugin("fetcher")!.permissions.granted).toEqual(["config", "http-outbound", "kv", "log", "memory"]);
    expect(runtime.current().instance("fetcher")!.plugin.granted.has("http-outbound")).toBe(true);
  });

  test("optional permissions are granted only when listed in grant", async () => {
    await writeToolPlugin(t.workspace, "opt", "ok", { optional: ["http-outbound", "events"] });
    config = ConfigSchema.parse({ plugins: { opt: { grant: ["events", "websocket"] } } });
    const record = (await runtime.start()).plugin("opt")!;
    expect(record.state).toBe("active");
    expect(record.permissions.granted).toEqual(["config", "events", "kv", "log"]);
  });

  test("a disabled plugin is listed as disabled and not loaded", async () => {
    await writeToolPlugin(t.workspace, "off", "x");
    config = ConfigSchema.parse({ plugins: { off: { enabled: false } } });
    const gen = await runtime.start();
    expect(gen.plugin("off")!.state).toBe("disabled");
    expect(loader.loads).toBe(0);
    expect(runtime.tools.list()).toEqual([]);
    expect((await reloadError("off")).message).toContain("disabled");
  });

  test("reload: generation increments, new code serves, counters survive the swap", async () => {
    await writeToolPlugin(t.workspace, "echo", "v1");
    await runtime.start();
    await callTool("echo_tool");
    const tool = runtime.tools.get("echo_tool")!;
    await writeToolPlugin(t.workspace, "echo", "v2");
    expect(await runtime.reload("echo")).toBe(2);
    expect(await tool.execute({}, ctx())).toEqual({ success: true, output: "v2", error: null });
    expect(await runtime.reload()).toBe(3);
    expect(runtime.status.get("echo", "tool", "echo_tool")!.invocations).toBe(2);
    await runtime.settled();
    expect(loader.releases).toBe(2);
  });

  describe("failed reloads leave the previous generation serving", () => {
    beforeEach(async () => {
      await writeToolPlugin(t.workspace, "echo", "v1");
      await runtime.start();
    });

    async function stillServing(): Promise<void> {
      expect(runtime.current().number).toBe(1);
      expect(await callTool("echo_tool")).toEqual({ success: true, output: "v1", error: null });
    }

    test("manifest parse error", async () => {
      writePlugin(t.workspace, "echo", '[plugin]\nname = "echo"\nversion = \n');
      const error = await reloadError("echo");
      expect(error.code).toBe("PLUGIN_RELOAD");
      expect(error.status).toBe(400);
      expect(error.message).toContain("generation 1 keeps serving");
      expect(error.message).toContain("invalid TOML");
      // the cause's hint stays a hint: the message says what failed, the hint what to do
      expect(error.message).not.toContain("hint:");
      expect(error.message).not.toContain("\n");
      await stillServing();
    });

    test("compile error", async () => {
      const garbage = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff]);
      writePlugin(t.workspace, "echo", manifest({ name: "echo", tools: ["echo_tool"] }), garbage);
      expect((await reloadError("echo")).message).toContain("compile failed");
      await stillServing();
    });

    test("instantiate error", async () => {
      const wasm = await toolModule({ tool: "echo_tool", output: "v2", unresolvedImport: true });
      writePlugin(t.workspace, "echo", manifest({ name: "echo", tools: ["echo_tool"] }), wasm);
      expect((await reloadError("echo")).message).toContain("instantiate failed");
      await stillServing();
    });

    test("invalid tool spec from get-spec", async () => {
      const wasm = await toolModule({ tool: "echo_tool", output: "v2", specJson: '{"name":"echo_tool","description":"d","parametersSchema":"{nope"}' });
      writePlugin(t.workspace, "echo", manifest({ name: "echo", tools: ["echo_tool"] }), wasm);
      expect((await reloadError("echo")).message).toContain("parameters-schema is not valid JSON");
      await stillServing();
    });

    test("target missing from the candidate (400) and unknown everywhere (404)", async () => {
      rmSync(join(t.workspace.pluginsDir, "echo"), { recursive: true });
      const gone = await reloadError("echo");
      expect([gone.code, gone.status]).toEqual(["PLUGIN_RELOAD", 400]);
      expect(gone.message).toContain("no longer present");
      expect(gone.hint).toContain("put the plugin back");
      const unknown = await reloadError("nope");
      expect([unknown.code, unknown.status]).toEqual(["PLUGIN_NOT_FOUND", 404]);
      await stillServing();
    });

    test("more entries than the limit fail even an unnamed reload", async () => {
      for (let i = 0; i < PLUGINS_DIR_MAX_ENTRIES; i++) writeFileSync(join(t.workspace.pluginsDir, `f${i}`), "");
      const error = await reloadError();
      expect(error.code).toBe("PLUGIN_RELOAD");
      expect(error.message).toContain(`more than the limit of ${PLUGINS_DIR_MAX_ENTRIES}`);
      await stillServing();
      expect(loader.releases).toBe(0);
    });
  });

  test("a start with more entries than the limit admits the first ones (sorted) and serves them", async () => {
    await writeToolPlugin(t.workspace, "echo", "v1");
    for (let i = 0; i < PLUGINS_DIR_MAX_ENTRIES; i++) writeFileSync(join(t.workspace.pluginsDir, `f${i}`), "");
    const generation = await runtime.start();
    expect(await callTool("echo_tool")).toEqual({ success: true, output: "v1", error: null });
    const refused = generation.plugins.filter((p) => p.state === "error");
    expect(refused).toHaveLength(1);
    expect(refused[0]!.error?.message).toContain(`more than the limit of ${PLUGINS_DIR_MAX_ENTRIES}`);
  });

  test("the old generation is released only after its in-flight calls finish", async () => {
    await writeToolPlugin(t.workspace, "echo", "v1");
    await runtime.start();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    loader.gate = () => gate;
    const first = runtime.current();
    const pending = callTool("echo_tool");
    expect(first.inFlight).toBe(1);
    await writeToolPlugin(t.workspace, "echo", "v2");
    loader.gate = null;
    expect(await runtime.reload("echo")).toBe(2);
    expect(await callTool("echo_tool")).toMatchObject({ output: "v2" });
    expect(first.isReleased).toBe(false);
    expect(loader.releases).toBe(0);
    open();
    expect(await pending).toEqual({ success: true, output: "v1", error: null });
    await runtime.settled();
    expect(first.isReleased).toBe(true);
    expect(loader.releases).toBe(1);
    expect(loader.releasedWhileBusy).toBe(false);
    expect(() => first.acquire()).toThrow("was released");
  });

  test("a drain timeout bounds how long a stuck call delays the release", async () => {
    await runtime.stop();
    runtime = getPluginRuntime(t.workspace, t.services, { loaders: [loader], config: () => config, drainTimeoutMs: 20 });
    await writeToolPlugin(t.workspace, "echo", "v1");
    await runtime.start();
    loader.gate = () => new Promise<void>(() => {});
    void callTool("echo_tool");
    loader.gate = null;
    await runtime.reload();
    await runtime.settled();
    expect(loader.releases).toBe(1);
    expect(loader.releasedWhileBusy).toBe(true);
  });

  test("exactly one runtime per canonical workspace; a symlinked path gets the same one", async () => {
    const link = join(t.workspace.root, "..", `link-${Date.now()}`);
    symlinkSync(t.workspace.root, link);
    try {
      const viaLink = getPluginRuntime({ ...t.workspace, root: link, pluginsDir: join(link, "plugins") }, t.services);
      expect(viaLink).toBe(runtime);
      expect(getPluginRuntime(t.workspace, t.services)).toBe(runtime);
    } finally {
      rmSync(link);
    }
    await Promise.all([runtime.stop(), runtime.stop()]);
    await expect(runtime.start()).rejects.toThrow("was stopped");
    const fresh = open();
    expect(fresh).not.toBe(runtime);
    runtime = fresh;
  });

  describe("tool names: no plugin can capture another's calls", () => {
    async function twoClaimants() {
      await writeToolPlugin(t.workspace, "a-first", "a");
      writePlugin(t.workspace, "b-second", manifest({ name: "b-second", tools: ["a_first_tool"] }), await toolModule({ tool: "a_first_tool", output: "b" }));
    }

    test("two plugins declaring one name are both in conflict and neither serves it", async () => {
      await twoClaimants();
      const gen = await runtime.start();
      for (const name of ["a-first", "b-second"]) {
        const record = gen.plugin(name)!;
        expect(record.state).toBe("conflict");
        expect(record.error?.code).toBe("PLUGIN_CONFLICT");
        expect(record.error?.message).toBe('tool "a_first_tool" is declared by plugins "a-first", "b-second"; none of them serves it');
        expect(record.error?.hint).toContain("tools_owner = true");
      }
      expect(runtime.tools.get("a_first_tool")).toBeUndefined();
      expect(runtime.tools.list()).toEqual([]);
      expect(loader.releases).toBe(2);
    });

    test("tools_owner in config.toml names the plugin that serves it", async () => {
      await twoClaimants();
      config = ConfigSchema.parse({ plugins: { "b-second": { tools_owner: true } } });
      const gen = await runtime.start();
      expect(await callTool("a_first_tool")).toMatchObject({ output: "b" });
      expect(gen.plugin("b-second")!.state).toBe("active");
      expect(gen.plugin("a-first")!.state).toBe("conflict");
      expect(gen.plugin("a-first")!.error?.message).toContain('is served by plugin "b-second" (tools_owner = true)');
    });

    test("two plugins both claiming ownership are both in conflict", async () => {
      await twoClaimants();
      config = ConfigSchema.parse({ plugins: { "a-first": { tools_owner: true }, "b-second": { tools_owner: true } } });
      const gen = await runtime.start();
      expect([gen.plugin("a-first")!.state, gen.plugin("b-second")!.state]).toEqual(["conflict", "conflict"]);
    });

    test("a rename in config.toml lets both serve, each under its own name", async () => {
      await twoClaimants();
      config = ConfigSchema.parse({ plugins: { "b-second": { tool_names: { a_first_tool: "b_tool", nope: "x" } } } });
      const gen = await runtime.start();
      expect(runtime.tools.list().map((spec) => spec.name).sort()).toEqual(["a_first_tool", "b_tool"]);
      expect(await callTool("a_first_tool")).toMatchObject({ output: "a" });
      expect(await callTool("b_tool")).toMatchObject({ output: "b" });
      expect(gen.plugin("b-second")!.warnings).toContain('tool_names renames "nope", which this plugin does not declare');
    });

    test("built-in tool names and wasm_plugins_manage are reserved", async () => {
      for (const [dir, tool] of [["squat-shell", "shell"], ["squat-manage", "wasm_plugins_manage"]] as const) {
        writePlugin(t.workspace, dir, manifest({ name: dir, tools: [tool] }), await toolModule({ tool, output: "captured" }));
      }
      const gen = await runtime.start();
      for (const [dir, tool] of [["squat-shell", "shell"], ["squat-manage", "wasm_plugins_manage"]] as const) {
        expect(gen.plugin(dir)!.state).toBe("conflict");
        expect(gen.plugin(dir)!.error?.message).toContain(`declares tool "${tool}", a name reserved for prx's built-in tool`);
      }
      expect(runtime.tools.list()).toEqual([]);
    });
  });

  test("every capability type gets an adapter; a remote entry without a plugin is an error", async () => {
    const dir = writePlugin(
      t.workspace,
      "mw",
      manifest({ name: "mw", tools: ["mw_tool"], extra: "" }) + `\n[[capabilities]]\ntype = "middleware"\nname = "redact"\n`,
      await toolModule({ tool: "mw_tool", output: "m" }),
    );
    expect(dir).toContain("mw");
    const remote = writePlugin(t.workspace, "rem", `[plugin]\nname = "rem"\nversion = "1"\nruntime = "remote"\n[remote]\nentry = "w.ts"\n`);
    writeFileSync(join(remote, "w.ts"), "export default {};\n");
    const gen = await runtime.start();
    expect(gen.plugin("mw")!.state).toBe("active");
    expect(gen.adaptersOf("mw").map((a) => a.type).sort()).toEqual(["middleware", "tool"]);
    expect(gen.plugin("rem")!.state).toBe("error");
    expect(gen.plugin("rem")!.error?.message).toContain("neither called bootstrap(plugin) nor exports a plugin object");
  });

  test("grants are read from the workspace config.toml by default, at every build", async () => {
    await runtime.stop();
    runtime = getPluginRuntime(t.workspace, t.services, { loaders: [loader] });
    await writeToolPlugin(t.workspace, "net", "ok", { required: ["http-outbound"] });
    expect((await runtime.start()).plugin("net")!.state).toBe("error");
    writeFileSync(t.workspace.configPath, `[plugins.net]\ngrant = ["http-outbound"]\n`);
    await runtime.reload("net");
    expect(runtime.current().plugin("net")!.state).toBe("active");
    writeFileSync(t.workspace.configPath, `[plugins.net]\ngrnt = []\n`);
    const error = await reloadError("net");
    expect(isPrxError(error, "PLUGIN_RELOAD")).toBe(true);
    expect(error.message).toContain("grnt");
    expect(runtime.current().number).toBe(2);
  });

  test("generation listeners see every swap; reloads are serialized", async () => {
    await writeToolPlugin(t.workspace, "echo", "v1");
    const seen: [number, number | null][] = [];
    runtime.onGeneration((next, previous) => seen.push([next.number, previous?.number ?? null]));
    await runtime.start();
    const results = await Promise.all([runtime.reload("echo"), runtime.reload(), runtime.reload("echo")]);
    expect(results).toEqual([2, 3, 4]);
    expect(seen).toEqual([[1, null], [2, 1], [3, 2], [4, 3]]);
    mkdirSync(join(t.workspace.pluginsDir, "empty"));
    expect((await runtime.reload()).valueOf()).toBe(5);
    expect(runtime.current().plugin("empty")!.state).toBe("error");
  });
});

describe("load timeout", () => {
  test("a load finishing within the limit passes; one that never settles fails only its plugin", async () => {
    await writeToolPlugin(t.workspace, "fast", "f");
    await writeToolPlugin(t.workspace, "stuck", "s");
    const real = new CoreTestLoader();
    let lateRelease: (() => void) | null = null;
    const hanging = {
      kinds: real.kinds,
      async load(plugin: Parameters<CoreTestLoader["load"]>[0]) {
        if (plugin.name !== "stuck") return real.load(plugin);
        const instance = await real.load(plugin);
        await new Promise<void>((resolve) => (lateRelease = resolve));
        return instance;
      },
    };
    await runtime.stop();
    runtime = getPluginRuntime(t.workspace, t.services, { loaders: [hanging], config: () => config, loadTimeoutMs: 250 });
    const gen = await runtime.start();
    expect(gen.plugin("fast")!.state).toBe("active");
    expect(gen.plugin("stuck")!.error?.message).toBe('plugin "stuck" did not load within 250 ms');
    expect(real.releases).toBe(0);
    lateRelease!();
    await Bun.sleep(1);
    expect(real.releases).toBe(1);
  });
});
