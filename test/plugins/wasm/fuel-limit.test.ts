import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "@bytecodealliance/jco";
import { isPrxError } from "../../../src/core/errors.ts";
import type { AdmittedPlugin } from "../../../src/plugins/types.ts";
import { wasmLoader } from "../../../src/plugins/wasm/index.ts";
import { ensureSpinPlugins } from "../../fixtures/pdk-js/build.ts";
import { type TestHost, admitted, failure, makeHost, removeDir } from "./helpers.ts";

/**
 * [resources] max_fuel through the sandbox: a call that needs exactly the budget passes, one that needs one unit
 * more fails with PLUGIN_FUEL naming plugin, call and budget, the instance is re-instantiated and the plugin keeps
 * serving. Units: FUEL.md (src/plugins/wasm/instrument/).
 */

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

const OK = '{"ok":{"success":true,"output":"done"}}';

/**
 * A core-module tool (CORE-ABI.md) whose execute counts to the length n of its JSON input. Fuel of one call, by
 * hand: alloc 1 (the host writes the input), execute 4 per loop header pass (n + 1) + 5 per iteration + 1, the two
 * deallocs 0: 9n + 6.
 */
const COUNTER = `(module
  (memory (export "memory") 1)
  (data (i32.const 0) ${JSON.stringify(OK)})
  (func (export "alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "dealloc") (param i32 i32))
  (func (export "get_spec") (param i32 i32) (result i64) (i64.const 0))
  (func (export "execute") (param $p i32) (param $n i32) (result i64) (local $i i32)
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (i64.const ${OK.length})))`;

const INPUT = "x".repeat(93);
const NEED = 9 * JSON.stringify([INPUT]).length + 6;
const cap = { type: "tool" as const, name: "core_echo" };

async function counter(name: string, maxFuel: number | null): Promise<AdmittedPlugin> {
  const dir = join(t.root, "counter");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "plugin.wasm"), await parse(COUNTER));
  return admitted("core-tool", { name, dir, entryPath: join(dir, "plugin.wasm"), resources: { maxFuel } });
}

describe("max_fuel", () => {
  test(`a call needing exactly max_fuel (${NEED}) passes; with one unit less it fails with PLUGIN_FUEL`, async () => {
    const exact = await wasmLoader.load(await counter("fuel-exact", NEED), t.host);
    expect(await exact.invoke(cap, "execute", [INPUT])).toEqual({ success: true, output: "done" });
    await exact.release();

    const short = await wasmLoader.load(await counter("fuel-short", NEED - 1), t.host);
    const error = await failure(short.invoke(cap, "execute", [INPUT]));
    expect(isPrxError(error, "PLUGIN_FUEL")).toBe(true);
    expect(error.message).toBe(
      `plugin fuel-short tool core_echo execute ran out of fuel: it needed more than max_fuel = ${NEED - 1} units ` +
        "(about one WebAssembly instruction each)",
    );
    expect(error.hint).toContain("raise [resources] max_fuel in plugin.toml");
    // re-instantiated, and still serving calls within the budget
    expect(await short.invoke(cap, "execute", ["x".repeat(92)])).toEqual({ success: true, output: "done" });
    await short.release();
  });

  test("without max_fuel the same call runs (nothing is counted)", async () => {
    const free = await wasmLoader.load(await counter("fuel-none", null), t.host);
    expect(await free.invoke(cap, "execute", ["x".repeat(50_000)])).toEqual({ success: true, output: "done" });
    await free.release();
  });

  for (const guest of ["spin-tool", "spin-tool-qjs"]) {
    test(`a JavaScript guest (${guest}) running out of fuel fails with PLUGIN_FUEL and keeps serving`, async () => {
      const dir = join(spinDir, guest);
      const plugin = admitted("loop-tool", {
        name: guest,
        dir,
        entryPath: join(dir, "plugin.wasm"),
        resources: { maxFuel: 50_000_000, maxMemoryMb: 64, maxExecutionTimeMs: 30_000 },
      });
      const inst = await wasmLoader.load(plugin, t.host);
      const spin = { type: "tool" as const, name: "spin" };
      expect(await inst.invoke(spin, "execute", ['{"loops":100}'])).toMatchObject({ success: true });
      const error = await failure(inst.invoke(spin, "execute", ['{"loops":100000000}']));
      expect(isPrxError(error, "PLUGIN_FUEL")).toBe(true);
      expect(error.message).toContain(`plugin ${guest} tool spin execute ran out of fuel`);
      expect(await inst.invoke(spin, "execute", ['{"loops":100}'])).toMatchObject({ success: true });
      await inst.release();
    }, 60_000);
  }
});
