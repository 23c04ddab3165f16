import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "@bytecodealliance/jco";
import { isPrxError } from "../../../src/core/errors.ts";
import type { AdmittedPlugin, PluginInstance } from "../../../src/plugins/types.ts";
import { loadWasmPlugin } from "../../../src/plugins/wasm/loader.ts";
import { sandboxWorkerPool } from "../../../src/plugins/wasm/sandbox/index.ts";
import { ensureSpinPlugins } from "../../fixtures/pdk-js/build.ts";
import { type TestHost, admitted, failure, makeHost, removeDir } from "./helpers.ts";
import { busiestThread, threadCount, threadNames } from "./proc-threads.ts";

/**
 * A guest spinning in WebAssembly is stopped for real when its call times out: after CALLS timed-out calls the
 * process has no more threads than before (no more Worker threads, and no more threads at all but for
 * JavaScriptCore's lazily started helpers, proc-threads.ts) and its CPU is idle within the time limit +
 * IDLE_AFTER_MS — for a core
 * module, a WAT component, and JavaScript guests built with componentize-js (SpiderMonkey) and QuickJS. (Before
 * guests were instrumented, each timed-out call left its Worker's thread spinning until the process exited.)
 */
const CALLS = 50;
const LIMIT_MS = 100;
/** The CPU must be idle this long after a call's time limit ended it. */
const IDLE_AFTER_MS = 100;
/**
 * Window in which "idle" is measured (ticks of 10 ms): no thread may use more than IDLE_TICKS in it (a spinning
 * one uses ~50), nor the whole process more than IDLE_TOTAL_TICKS (two spinning threads use ~100).
 */
const IDLE_WINDOW_MS = 500;
const IDLE_TICKS = 10;
const IDLE_TOTAL_TICKS = 25;

let t: TestHost;
let spinDir: string;
beforeAll(async () => {
  t = makeHost();
  spinDir = await ensureSpinPlugins();
}, 300_000);
afterAll(() => {
  t.close();
  removeDir(t.root);
});

const SPIN_MODULE = `(module
  (memory (export "memory") 1)
  (func (export "alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "dealloc") (param i32 i32))
  (func (export "get_spec") (param i32 i32) (result i64) (i64.const 0))
  (func (export "execute") (param i32 i32) (result i64) (loop $l (br $l)) (unreachable)))`;

async function coreModule(name: string, source: string): Promise<AdmittedPlugin> {
  const dir = join(t.root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "plugin.wasm"), await parse(source));
  return admitted("core-tool", { name, dir, entryPath: join(dir, "plugin.wasm"), resources: { maxExecutionTimeMs: LIMIT_MS } });
}

function jsGuest(name: string): AdmittedPlugin {
  const dir = join(spinDir, name);
  return admitted("loop-tool", {
    name,
    dir,
    entryPath: join(dir, "plugin.wasm"),
    resources: { maxExecutionTimeMs: LIMIT_MS, maxMemoryMb: 64 },
  });
}

interface Guest {
  plugin: () => Promise<AdmittedPlugin>;
  capability: { type: "tool"; name: string };
  spin: string;
  quick: string;
}

const GUESTS: Record<string, Guest> = {
  "core module (WAT)": {
    plugin: () => coreModule("spin-core", SPIN_MODULE),
    capability: { type: "tool", name: "core_echo" },
    spin: "x",
    quick: "",
  },
  "component (WAT loop-tool)": {
    plugin: async () => admitted("loop-tool", { resources: { maxExecutionTimeMs: LIMIT_MS } }),
    capability: { type: "tool", name: "spin" },
    spin: "forever",
    quick: "quick",
  },
  "componentize-js (SpiderMonkey) guest": {
    plugin: async () => jsGuest("spin-tool"),
    capability: { type: "tool", name: "spin" },
    spin: '{"forever":true}',
    quick: '{"loops":10}',
  },
  "jco QuickJS guest": {
    plugin: async () => jsGuest("spin-tool-qjs"),
    capability: { type: "tool", name: "spin" },
    spin: '{"forever":true}',
    quick: '{"loops":10}',
  },
};

/** Threads once the pool is refilled and the process has settled after the last restart. */
async function settledThreads(): Promise<number> {
  await sandboxWorkerPool.settled();
  await Bun.sleep(200);
  return threadCount();
}

describe(`${CALLS} calls over max_execution_time_ms leave no thread behind and the CPU idle`, () => {
  for (const [name, guest] of Object.entries(GUESTS)) {
    test(name, async () => {
      const inst: PluginInstance = await loadWasmPlugin(await guest.plugin(), t.host);
      try {
        const spin = () => failure(inst.invoke(guest.capability, "execute", [guest.spin]));
        // warm up: one timed-out call and one restart, so lazily started JIT and pool threads exist already
        await spin();
        if (guest.quick) await inst.invoke(guest.capability, "execute", [guest.quick]);
        const baseline = await settledThreads();
        const workers = threadNames().filter((n) => n === "Worker").length;
        for (let i = 0; i < CALLS; i++) {
          const error = await spin();
          expect(isPrxError(error, "PLUGIN_TIMEOUT")).toBe(true);
        }
        await Bun.sleep(IDLE_AFTER_MS);
        const cpu = await busiestThread(IDLE_WINDOW_MS);
        expect(cpu.ticks).toBeLessThanOrEqual(IDLE_TICKS);
        expect(cpu.total).toBeLessThanOrEqual(IDLE_TOTAL_TICKS);
        expect(await settledThreads()).toBeLessThanOrEqual(baseline);
        expect(threadNames().filter((n) => n === "Worker").length).toBeLessThanOrEqual(workers);
        // the plugin keeps serving
        if (guest.quick) await inst.invoke(guest.capability, "execute", [guest.quick]);
      } finally {
        await inst.release();
      }
    }, 120_000);
  }

  test("a start function spinning past the sandbox start timeout is stopped too", async () => {
    const plugin = await coreModule(
      "spin-at-start",
      SPIN_MODULE.replace('(memory (export "memory") 1)', '(memory (export "memory") 1) (func $hang (loop $l (br $l))) (start $hang)'),
    );
    const baseline = await settledThreads();
    for (let i = 0; i < 3; i++) {
      const error = await failure(loadWasmPlugin(plugin, t.host, { initTimeoutMs: 200 }));
      expect(isPrxError(error, "PLUGIN_TIMEOUT")).toBe(true);
    }
    await Bun.sleep(IDLE_AFTER_MS);
    const cpu = await busiestThread(IDLE_WINDOW_MS);
    expect(cpu.ticks).toBeLessThanOrEqual(IDLE_TICKS);
    expect(cpu.total).toBeLessThanOrEqual(IDLE_TOTAL_TICKS);
    expect(await settledThreads()).toBeLessThanOrEqual(baseline);
  }, 60_000);
});
