import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isPrxError } from "../../../src/core/errors.ts";
import { MAX_OUTPUT_BYTES, MAX_QUEUED_CALLS_PER_INSTANCE, wasmLoader } from "../../../src/plugins/wasm/index.ts";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "@bytecodealliance/jco";
import { EXECUTION_TIME_SAMPLES, SANDBOX_INIT_TIMEOUT_MS } from "../../../src/plugins/wasm/limits.ts";
import { loadWasmPlugin } from "../../../src/plugins/wasm/loader.ts";
import type { PluginInstance } from "../../../src/plugins/types.ts";
import type { WasmPluginInstance } from "../../../src/plugins/wasm/instance.ts";
import { admitted, failure, hostPerFile } from "./helpers.ts";

const t = hostPerFile();

describe("max_execution_time_ms", () => {
  const spin = { type: "tool" as const, name: "spin" };
  let inst: PluginInstance;
  beforeAll(async () => {
    inst = await wasmLoader.load(admitted("loop-tool", { resources: { maxExecutionTimeMs: 200 } }), t.host);
  });
  afterAll(() => inst.release());

  test("an infinite loop is killed at its limit, the main thread keeps running, the next call works", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const error = await failure(inst.invoke(spin, "execute", ["forever"]));
    clearInterval(timer);
    expect(isPrxError(error, "PLUGIN_TIMEOUT")).toBe(true);
    expect(error.message).toContain("max_execution_time_ms (200 ms)");
    expect(ticks).toBeGreaterThan(3);
    expect(await inst.invoke(spin, "execute", ["quick"])).toMatchObject({ success: true, output: "alive" });
  });

  test("calls queued behind a runaway call fail with a clear error, later calls succeed", async () => {
    const first = failure(inst.invoke(spin, "execute", ["forever"]));
    const queued = failure(inst.invoke(spin, "execute", ["quick"]));
    const [a, b] = await Promise.all([first, queued]);
    expect(isPrxError(a, "PLUGIN_TIMEOUT")).toBe(true);
    expect(isPrxError(b, "PLUGIN_TIMEOUT")).toBe(true);
    expect(b.message).toContain("aborted because its sandbox was terminated");
    expect(await inst.invoke(spin, "execute", ["quick"])).toMatchObject({ output: "alive" });
  });

  test(`at most ${MAX_QUEUED_CALLS_PER_INSTANCE} calls wait on one instance; one more is rejected`, async () => {
    const running = failure(inst.invoke(spin, "execute", ["forever"]));
    const queued = Array.from({ length: MAX_QUEUED_CALLS_PER_INSTANCE }, () =>
      failure(inst.invoke(spin, "execute", ["quick"])),
    );
    const overflow = await failure(inst.invoke(spin, "execute", ["quick"]));
    expect(isPrxError(overflow, "LIMIT_EXCEEDED")).toBe(true);
    await running;
    const settled = await Promise.all(queued);
    expect(settled.every((e) => isPrxError(e, "PLUGIN_TIMEOUT"))).toBe(true);
  });
});

describe("execution time", () => {
  test("the sandbox reports the median time its guest ran inside the Worker, over successful calls only", async () => {
    const inst = (await wasmLoader.load(admitted("loop-tool"), t.host)) as WasmPluginInstance;
    const spin = { type: "tool" as const, name: "spin" };
    try {
      expect(inst.sandbox.executionP50()).toBeNull();
      expect(inst.sandbox.lastExecution()).toBeNull();
      for (let i = 0; i < 5; i++) await inst.invoke(spin, "execute", ["quick"]);
      expect(inst.sandbox.lastExecution()).toBeGreaterThan(0);
      const p50 = inst.sandbox.executionP50()!;
      expect(p50).toBeGreaterThan(0);
      for (let i = 5; i < EXECUTION_TIME_SAMPLES; i++) await inst.invoke(spin, "execute", ["quick"]);
      expect(inst.sandbox.executionSamples()).toBe(EXECUTION_TIME_SAMPLES);
      await inst.invoke(spin, "execute", ["quick"]);
      expect(inst.sandbox.executionSamples()).toBe(EXECUTION_TIME_SAMPLES);
      // A call that starts a busy loop and is killed at its limit is not a sample.
      const slow = await wasmLoader.load(admitted("loop-tool", { resources: { maxExecutionTimeMs: 100 } }), t.host);
      await failure(slow.invoke(spin, "execute", ["forever"]));
      expect((slow as WasmPluginInstance).sandbox.executionP50()).toBeNull();
      expect((slow as WasmPluginInstance).sandbox.lastExecution()).toBeNull();
      await slow.release();
    } finally {
      await inst.release();
    }
  });
});

describe("max_memory_mb", () => {
  const bomb = { type: "tool" as const, name: "bomb" };

  test("a memory bomb is contained: the call fails with LIMIT_EXCEEDED and the plugin keeps serving", async () => {
    const inst = await wasmLoader.load(admitted("bomb-tool", { resources: { maxMemoryMb: 8 } }), t.host);
    const error = await failure(inst.invoke(bomb, "execute", ["grow"]));
    expect(isPrxError(error, "LIMIT_EXCEEDED")).toBe(true);
    expect(error.message).toContain("max_memory_mb = 8");
    expect(await inst.invoke(bomb, "execute", ["ok"])).toMatchObject({ success: true, output: "ok" });
    await inst.release();
  });

  test("initial memory equal to the limit loads; a limit below it fails the load", async () => {
    const onePage = 64 / 1024;
    const ok = await wasmLoader.load(
      admitted("bomb-tool", { name: "bomb-a", resources: { maxMemoryMb: onePage } }),
      t.host,
    );
    expect(await ok.invoke(bomb, "execute", ["ok"])).toMatchObject({ output: "ok" });
    await ok.release();
    const error = await failure(
      wasmLoader.load(admitted("bomb-tool", { name: "bomb-b", resources: { maxMemoryMb: onePage / 2 } }), t.host),
    );
    expect(isPrxError(error, "PLUGIN_LOAD")).toBe(true);
    expect(error.message).toContain("initial memory");
  });
});

describe("MAX_OUTPUT_BYTES", () => {
  const core = { type: "tool" as const, name: "core_echo" };
  // core_echo answers {"ok":{"success":true,"output":"<input>"}}
  const frame = '{"ok":{"success":true,"output":""}}'.length;

  test("a result of exactly MAX_OUTPUT_BYTES passes, one byte more fails with PLUGIN_OUTPUT", async () => {
    const inst = await wasmLoader.load(admitted("core-tool"), t.host);
    const atLimit = "a".repeat(MAX_OUTPUT_BYTES - frame);
    const result = (await inst.invoke(core, "execute", [atLimit])) as { output: string };
    expect(result.output.length).toBe(atLimit.length);
    const error = await failure(inst.invoke(core, "execute", [atLimit + "a"]));
    expect(isPrxError(error, "PLUGIN_OUTPUT")).toBe(true);
    await inst.release();
  });

  test("a component result far over the cap fails with PLUGIN_OUTPUT, a large one under it passes", async () => {
    const inst = await wasmLoader.load(admitted("echo-tool"), t.host);
    const cap = { type: "tool" as const, name: "echo_upper" };
    expect(
      ((await inst.invoke(cap, "execute", ["a".repeat(MAX_OUTPUT_BYTES - 100)])) as { output: string }).output.length,
    ).toBe(MAX_OUTPUT_BYTES - 100);
    const error = await failure(inst.invoke(cap, "execute", ["a".repeat(MAX_OUTPUT_BYTES + 1)]));
    expect(isPrxError(error, "PLUGIN_OUTPUT")).toBe(true);
    await inst.release();
  });
});

describe("SANDBOX_INIT_TIMEOUT_MS", () => {
  // A core module whose start function never returns: instantiation in the sandbox Worker hangs.
  const HANGS_AT_START = `(module
    (memory (export "memory") 1)
    (func $hang (loop $l (br $l)))
    (start $hang)
    (func (export "alloc") (param i32) (result i32) (i32.const 0))
    (func (export "dealloc") (param i32 i32))
    (func (export "get_spec") (param i32 i32) (result i64) (i64.const 0))
    (func (export "execute") (param i32 i32) (result i64) (i64.const 0)))`;

  test("a sandbox that never finishes starting fails the load at its limit; the host and later loads go on", async () => {
    const dir = join(t.root, "hang-at-start");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "plugin.wasm"), await parse(HANGS_AT_START));
    const plugin = admitted("core-tool", { name: "hang-at-start", dir, entryPath: join(dir, "plugin.wasm") });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const error = await failure(loadWasmPlugin(plugin, t.host, { initTimeoutMs: 300 }));
    clearInterval(timer);
    expect(isPrxError(error, "PLUGIN_TIMEOUT")).toBe(true);
    expect(error.message).toContain("hang-at-start: sandbox did not start within 300 ms");
    expect(ticks).toBeGreaterThan(3);
    expect(SANDBOX_INIT_TIMEOUT_MS).toBe(30_000);
    const next = await wasmLoader.load(admitted("core-tool"), t.host);
    expect(await next.invoke({ type: "tool", name: "core_echo" }, "execute", ["after"])).toMatchObject({
      output: "after",
    });
    await next.release();
  });
});
