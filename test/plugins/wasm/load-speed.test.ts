import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { isPrxError } from "../../../src/core/errors.ts";
import {
  cachedArtifactCount,
  compileCount,
  prepareModule,
} from "../../../src/plugins/wasm/artifact-cache.ts";
import { MAX_CACHED_ARTIFACTS, SANDBOX_POOL_SIZE, wasmLoader } from "../../../src/plugins/wasm/index.ts";
import { sandboxWorkerPool } from "../../../src/plugins/wasm/sandbox/index.ts";
import { wat } from "../runtime/helpers.ts";
import { type TestHost, admitted, failure, makeHost, removeDir } from "./helpers.ts";

let t: TestHost;
beforeAll(() => {
  t = makeHost();
});
afterAll(() => {
  t.close();
  removeDir(t.root);
});

const echoCap = { type: "tool" as const, name: "echo_upper" };

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

  test(`holds ${MAX_CACHED_ARTIFACTS} artifacts; one more evicts the least recently used`, async () => {
    const base = 1_000_000 + Math.floor(Math.random() * 1_000_000);
    const prepare = (n: number) => prepareModule("lru", tinyModule(n), t.host.workspace.cacheDir, 1, "interrupt");
    for (let i = 0; i < MAX_CACHED_ARTIFACTS; i++) await prepare(base + i);
    expect(cachedArtifactCount()).toBe(MAX_CACHED_ARTIFACTS);
    let compiled = compileCount();
    await prepare(base); // at the limit: every entry is still cached
    expect(compileCount()).toBe(compiled);
    await prepare(base + MAX_CACHED_ARTIFACTS); // one past: evicts base + 1
    expect(cachedArtifactCount()).toBe(MAX_CACHED_ARTIFACTS);
    compiled = compileCount();
    await prepare(base);
    expect(compileCount()).toBe(compiled);
    await prepare(base + 1);
    expect(compileCount()).toBe(compiled + 1);
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
  test("a load takes a pre-started Worker; each taken Worker belongs to one sandbox", async () => {
    const first = await wasmLoader.load(admitted("echo-tool", { name: "pool-a" }), t.host);
    await sandboxWorkerPool.settled();
    const before = sandboxWorkerPool.stats();
    expect(before.idle).toBe(Math.min(SANDBOX_POOL_SIZE, before.holders));
    const second = await wasmLoader.load(admitted("echo-tool", { name: "pool-b" }), t.host);
    expect(sandboxWorkerPool.stats().spawned).toBe(before.spawned);
    expect(await first.invoke(echoCap, "execute", ["a"])).toMatchObject({ output: "A" });
    expect(await second.invoke(echoCap, "execute", ["b"])).toMatchObject({ output: "B" });
    const a = sandboxWorkerPool.take();
    const b = sandboxWorkerPool.take();
    expect(a.worker).not.toBe(b.worker);
    for (const taken of [a, b]) {
      taken.started();
      taken.worker.terminate();
    }
    await Promise.all([first.release(), second.release()]);
  });

  test(`keeps at most SANDBOX_POOL_SIZE (${SANDBOX_POOL_SIZE}) idle Workers; the last release terminates them`, async () => {
    const base = sandboxWorkerPool.stats().holders;
    const holds = Array.from({ length: SANDBOX_POOL_SIZE - base }, () => sandboxWorkerPool.hold());
    const kick = () => {
      const taken = sandboxWorkerPool.take();
      taken.started();
      taken.worker.terminate();
    };
    kick();
    await sandboxWorkerPool.settled();
    expect(sandboxWorkerPool.stats().idle).toBe(SANDBOX_POOL_SIZE); // SANDBOX_POOL_SIZE holders: one each
    holds.push(sandboxWorkerPool.hold());
    kick();
    await sandboxWorkerPool.settled();
    expect(sandboxWorkerPool.stats().idle).toBe(SANDBOX_POOL_SIZE); // one holder more: still the cap
    holds.pop()!();
    holds.pop()!();
    expect(sandboxWorkerPool.stats().idle).toBe(SANDBOX_POOL_SIZE - 1); // fewer sandboxes: trimmed
    for (const release of holds) release();
    if (base === 0) expect(sandboxWorkerPool.stats()).toMatchObject({ idle: 0, holders: 0 });
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
