import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isPrxError } from "../../../src/core/errors.ts";
import {
  cachedArtifactCount,
  compileCount,
  prepareModule,
} from "../../../src/plugins/wasm/artifact-cache.ts";
import { SANDBOX_WORKERS, wasmLoader } from "../../../src/plugins/wasm/index.ts";
import { loadWasmPlugin } from "../../../src/plugins/wasm/loader.ts";
import type { WasmPluginInstance } from "../../../src/plugins/wasm/instance.ts";
import { sandboxWorkerPool } from "../../../src/plugins/wasm/sandbox/index.ts";
import { waitFor } from "../../helpers/wait.ts";
import { wat } from "../runtime/helpers.ts";
import { admitted, failure, hostPerFile } from "./helpers.ts";

const t = hostPerFile();

const echoCap = { type: "tool" as const, name: "echo_upper" };
const coreCap = { type: "tool" as const, name: "core_echo" };

/** A valid core module whose content (a custom section) differs by `n`. */
function tinyModule(n: number): Uint8Array {
  const name = new TextEncoder().encode(`m${n}`);
  return new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 0, name.length + 1, name.length, ...name]);
}

describe("artifact cache", () => {
  test("a second load of an unchanged plugin compiles nothing", async () => {
    const first = await wasmLoader.load(admitted("echo-tool", { name: "cache-a" }), t.host);
    const compiled = compileCount();
    const second = await wasmLoader.load(admitted("echo-tool", { name: "cache-b" }), t.host);
    expect(compileCount()).toBe(compiled);
    expect(await second.invoke(echoCap, "execute", ["x"])).toMatchObject({ output: "X" });
    await Promise.all([first.release(), second.release()]);
  });

  test("another memory cap is another compiled artifact (the cap is compiled in)", async () => {
    const compiled = compileCount();
    const inst = await wasmLoader.load(admitted("core-tool", { resources: { maxMemoryMb: 3 } }), t.host);
    expect(compileCount()).toBe(compiled + 1);
    await inst.release();
  });

  test("an artifact is kept while a sandbox uses it and dropped with the last one; the next start compiles again", async () => {
    const held = cachedArtifactCount();
    const load = (name: string) => loadWasmPlugin(admitted("core-tool", { name, resources: { maxMemoryMb: 5 } }), t.host);
    const compiled = compileCount();
    const a = await load("kept-a");
    const b = await load("kept-b");
    expect(compileCount()).toBe(compiled + 1);
    expect(cachedArtifactCount()).toBe(held + 1);
    await a.release();
    expect(cachedArtifactCount()).toBe(held + 1);
    expect(await b.invoke(coreCap, "execute", ["b"])).toMatchObject({ success: true });
    await b.release();
    expect(cachedArtifactCount()).toBe(held);
    const c = await load("kept-c");
    expect(compileCount()).toBe(compiled + 2);
    expect(await c.invoke(coreCap, "execute", ["c"])).toMatchObject({ success: true });
    await c.release();
    expect(cachedArtifactCount()).toBe(held);
  });

  test("a preparation that nothing uses any more is dropped", async () => {
    const held = cachedArtifactCount();
    const prepare = () => prepareModule("unused", tinyModule(Math.random()), t.host.workspace.cacheDir, 1, "interrupt");
    const first = await prepare();
    expect(cachedArtifactCount()).toBe(held + 1);
    first.done();
    first.done(); // letting go twice is letting go once
    expect(cachedArtifactCount()).toBe(held);
  });

  test("a module that does not compile fails with PLUGIN_LOAD naming the plugin, and is not cached", async () => {
    // well formed (it instruments) but ill typed: a function declared to return i32 returns nothing
    const bad = new Uint8Array([
      ...[0, 0x61, 0x73, 0x6d, 1, 0, 0, 0],
      ...[0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7f],
      ...[0x03, 0x02, 0x01, 0x00],
      ...[0x0a, 0x04, 0x01, 0x02, 0x00, 0x0b],
    ]);
    const prepare = (name: string) => prepareModule(name, bad, t.host.workspace.cacheDir, 1, "interrupt");
    const error = await failure(prepare("broken"));
    expect(isPrxError(error, "PLUGIN_LOAD")).toBe(true);
    expect(error.message).toContain("plugin broken does not compile");
    const compiled = compileCount();
    await expect(prepare("broken-2")).rejects.toThrow("plugin broken-2 does not compile");
    expect(compileCount()).toBe(compiled + 1);
  });
});

describe("sandbox Worker pool", () => {
  test(`plugins share at most SANDBOX_WORKERS (${SANDBOX_WORKERS}) Workers, however many; the last release ends them`, async () => {
    const base = sandboxWorkerPool.stats();
    const count = SANDBOX_WORKERS + 3;
    const loaded = [];
    for (let i = 0; i < count; i++) loaded.push(await wasmLoader.load(admitted("echo-tool", { name: `pool-${i}` }), t.host));
    for (const [i, inst] of loaded.entries()) expect(await inst.invoke(echoCap, "execute", [`p${i}`])).toMatchObject({ output: `P${i}` });
    const full = sandboxWorkerPool.stats();
    expect(full.workers).toBe(SANDBOX_WORKERS);
    expect(full.tenants).toBe(base.tenants + count);
    expect(full.spawned - base.spawned).toBeLessThanOrEqual(SANDBOX_WORKERS);
    await Promise.all(loaded.map((inst) => inst.release()));
    if (base.holders === 0) expect(sandboxWorkerPool.stats()).toMatchObject({ workers: 0, tenants: 0, holders: 0 });
  });

  test("a Worker ends with the last plugin it hosts, while other Workers keep theirs; the next plugin gets a new one", async () => {
    const base = sandboxWorkerPool.stats();
    expect(base.tenants).toBe(0);
    // SANDBOX_WORKERS >= 2: the second plugin goes to a second Worker
    const alone = await wasmLoader.load(admitted("echo-tool", { name: "alone-a" }), t.host);
    const neighbour = await wasmLoader.load(admitted("echo-tool", { name: "alone-b" }), t.host);
    expect(sandboxWorkerPool.stats().workers).toBe(2);
    await alone.release();
    await waitFor(() => sandboxWorkerPool.stats().workers === 1, "the Worker of the released plugin to end");
    expect(await neighbour.invoke(echoCap, "execute", ["still"])).toMatchObject({ output: "STILL" });
    const spawned = sandboxWorkerPool.stats().spawned;
    const next = await wasmLoader.load(admitted("echo-tool", { name: "alone-c" }), t.host);
    expect(sandboxWorkerPool.stats()).toMatchObject({ workers: 2, spawned: spawned + 1 });
    expect(await next.invoke(echoCap, "execute", ["new"])).toMatchObject({ output: "NEW" });
    await Promise.all([neighbour.release(), next.release()]);
  });

  test("a timed-out plugin is stopped alone: its neighbours in the same Workers keep their instances", async () => {
    const base = sandboxWorkerPool.stats();
    const neighbours = [];
    for (let i = 0; i < SANDBOX_WORKERS; i++) neighbours.push(await wasmLoader.load(admitted("echo-tool", { name: `near-${i}` }), t.host));
    // every Worker hosts a neighbour already: the spinning plugin shares one of them
    const spinner = await wasmLoader.load(admitted("loop-tool", { name: "spinner", resources: { maxExecutionTimeMs: 200 } }), t.host);
    const spin = { type: "tool" as const, name: "spin" };
    for (let round = 0; round < 3; round++) {
      const error = await failure(spinner.invoke(spin, "execute", ["forever"]));
      expect(isPrxError(error, "PLUGIN_TIMEOUT")).toBe(true);
      for (const [i, inst] of neighbours.entries()) expect(await inst.invoke(echoCap, "execute", [`n${i}`])).toMatchObject({ output: `N${i}` });
    }
    expect(await spinner.invoke(spin, "execute", ["quick"])).toMatchObject({ output: "alive" });
    for (const inst of neighbours) expect((inst as WasmPluginInstance).sandbox.restarts).toBe(0);
    expect((spinner as WasmPluginInstance).sandbox.restarts).toBe(3);
    expect(sandboxWorkerPool.stats().spawned - base.spawned).toBeLessThanOrEqual(SANDBOX_WORKERS); // none was replaced
    await Promise.all([...neighbours, spinner].map((inst) => inst.release()));
  });

  test("middleware plugins share one Worker (a chain calls them one after another); other plugins still spread", async () => {
    expect(sandboxWorkerPool.stats().tenants).toBe(0);
    const passCap = { type: "middleware" as const, name: "passthrough" };
    const first = await wasmLoader.load(admitted("middleware-pass", { name: "chain-a" }), t.host);
    // without the chain rule the second sandbox would start a second Worker (each existing one hosts a sandbox)
    const second = await wasmLoader.load(admitted("middleware-pass", { name: "chain-b" }), t.host);
    expect(sandboxWorkerPool.stats()).toMatchObject({ workers: 1, tenants: 2 });
    const tool = await wasmLoader.load(admitted("echo-tool", { name: "beside-chain" }), t.host);
    expect(sandboxWorkerPool.stats()).toMatchObject({ workers: 2, tenants: 3 });
    for (const inst of [first, second]) expect(await inst.invoke(passCap, "process", ["inbound", '{"text":"hi"}'])).toBe('{"text":"hi"}');
    expect(await tool.invoke(echoCap, "execute", ["x"])).toMatchObject({ output: "X" });
    await Promise.all([first.release(), second.release(), tool.release()]);
  });

  test("a reloaded plugin's sandbox goes to the Worker of the one it replaces; another plugin still spreads", async () => {
    expect(sandboxWorkerPool.stats().tenants).toBe(0);
    const old = await wasmLoader.load(admitted("echo-tool", { name: "reloaded" }), t.host);
    const spawned = sandboxWorkerPool.stats().spawned;
    // without the rule the new generation would start a second Worker (the only one hosts a sandbox)
    const next = await wasmLoader.load(admitted("echo-tool", { name: "reloaded" }), t.host);
    expect(sandboxWorkerPool.stats()).toMatchObject({ workers: 1, tenants: 2, spawned });
    await old.release();
    expect(await next.invoke(echoCap, "execute", ["next"])).toMatchObject({ output: "NEXT" });
    // the same name from another entry file is another plugin: it spreads to a Worker of its own
    mkdirSync(join(t.root, "elsewhere"), { recursive: true });
    const entryPath = join(t.root, "elsewhere", "plugin.wasm");
    copyFileSync(admitted("echo-tool").entryPath, entryPath);
    const other = await wasmLoader.load(admitted("echo-tool", { name: "reloaded", entryPath }), t.host);
    expect(sandboxWorkerPool.stats()).toMatchObject({ workers: 2, tenants: 2, spawned: spawned + 1 });
    expect(await other.invoke(echoCap, "execute", ["other"])).toMatchObject({ output: "OTHER" });
    await Promise.all([next.release(), other.release()]);
  });

  test("a sandbox that fails to start lets go of the pool", async () => {
    const path = join(t.root, "no-memory.wasm");
    writeFileSync(
      path,
      await wat(`(module
        (func (export "get_spec") (param i32 i32) (result i64) i64.const 0)
        (func (export "execute") (param i32 i32) (result i64) i64.const 0))`),
    );
    const holders = sandboxWorkerPool.stats().holders;
    const error = await failure(wasmLoader.load(admitted("core-tool", { name: "no-memory", entryPath: path }), t.host));
    expect(isPrxError(error, "PLUGIN_LOAD")).toBe(true);
    expect(error.message).toContain("must export memory, alloc and dealloc");
    expect(sandboxWorkerPool.stats().holders).toBe(holders);
  });

  test("sandbox Workers never keep the process alive: a loaded, unreleased plugin lets it exit after its call", () => {
    const script = `
      import { wasmLoader } from "${join(import.meta.dir, "../../../src/plugins/wasm/index.ts")}";
      import { admitted, makeHost } from "${join(import.meta.dir, "helpers.ts")}";
      const t = makeHost({ root: ${JSON.stringify(t.root)} });
      const inst = await wasmLoader.load(admitted("echo-tool"), t.host);
      inst.invoke({ type: "tool", name: "echo_upper" }, "execute", ["bye"]).then((r) => console.log(r.output));`;
    const proc = Bun.spawnSync([process.execPath, "-e", script], { stderr: "pipe", timeout: 20_000 });
    expect(proc.exitCode).toBe(0);
    expect(proc.stdout.toString().trim()).toBe("BYE");
  });
});
