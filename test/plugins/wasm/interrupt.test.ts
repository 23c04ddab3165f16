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
import { waitFor } from "../../helpers/wait.ts";
import { busiestThread, threadCount, threadNames } from "./proc-threads.ts";

/**
 * A guest spinning in WebAssembly is stopped for real when its call times out: after CALLS timed-out calls the
 * process's threads come back to what they were (no more Worker threads, and no more threads at all but for
 * JavaScriptCore's lazily started helpers, proc-threads.ts), and once they have, no thread is left spinning — for a
 * core module, a WAT component, and JavaScript guests built with componentize-js (SpiderMonkey) and QuickJS. An
 * uninstrumented guest would keep its Worker's thread spinning until the process exits. How soon a guest stops is
 * the bench's to measure; this test waits for the outcome.
 */
const CALLS = 50;
const LIMIT_MS = 100;
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

/** True when a quick call is served, false when it passed the time limit (the sandbox then restarts). */
async function served(inst: PluginInstance, guest: Guest): Promise<boolean> {
  try {
    await inst.invoke(guest.capability, "execute", [guest.quick]);
    return true;
  } catch (error) {
    if (isPrxError(error, "PLUGIN_TIMEOUT")) return false;
    throw error;
  }
}

const workerThreads = () => threadNames().filter((n) => n === "Worker").length;

/** Waits until the stopped guests' threads have ended: no more threads, and no more Worker threads, than `before`. */
async function threadsBackTo(before: { threads: number; workers: number }): Promise<void> {
  await waitFor(
    async () => (await settledThreads()) <= before.threads && workerThreads() <= before.workers,
    () => `threads back to ${before.threads} (${before.workers} Workers); now ${threadCount()} (${workerThreads()} Workers)`,
  );
}

describe(`${CALLS} calls over max_execution_time_ms leave no thread behind and the CPU idle`, () => {
  for (const [name, guest] of Object.entries(GUESTS)) {
    test(name, async () => {
      const inst: PluginInstance = await loadWasmPlugin(await guest.plugin(), t.host);
      try {
        const spin = () => failure(inst.invoke(guest.capability, "execute", [guest.spin]));
        // warm up: one timed-out call and one restart, so lazily started JIT and pool threads exist already (on a
        // loaded machine a fresh instance's first call can itself pass the limit; the warm-up asks until one is served)
        await spin();
        if (guest.quick) await waitFor(() => served(inst, guest), "a quick call served after the warm-up's timeout");
        const baseline = await settledThreads();
        const workers = workerThreads();
        for (let i = 0; i < CALLS; i++) {
          const error = await spin();
          expect(isPrxError(error, "PLUGIN_TIMEOUT")).toBe(true);
        }
        await threadsBackTo({ threads: baseline, workers });
        const cpu = await busiestThread(IDLE_WINDOW_MS);
        expect(cpu.ticks).toBeLessThanOrEqual(IDLE_TICKS);
        expect(cpu.total).toBeLessThanOrEqual(IDLE_TOTAL_TICKS);
        expect(await settledThreads()).toBeLessThanOrEqual(baseline);
        expect(workerThreads()).toBeLessThanOrEqual(workers);
        // the plugin keeps serving (asked as the warm-up asks)
        if (guest.quick) await waitFor(() => served(inst, guest), "a quick call served after the timed-out calls");
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
    const workers = workerThreads();
    for (let i = 0; i < 3; i++) {
      const error = await failure(loadWasmPlugin(plugin, t.host, { initTimeoutMs: 200 }));
      expect(isPrxError(error, "PLUGIN_TIMEOUT")).toBe(true);
    }
    await threadsBackTo({ threads: baseline, workers });
    const cpu = await busiestThread(IDLE_WINDOW_MS);
    expect(cpu.ticks).toBeLessThanOrEqual(IDLE_TICKS);
    expect(cpu.total).toBeLessThanOrEqual(IDLE_TOTAL_TICKS);
    expect(await settledThreads()).toBeLessThanOrEqual(baseline);
  }, 60_000);
});
