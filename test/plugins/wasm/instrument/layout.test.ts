import { describe, expect, test } from "bun:test";
import { print } from "@bytecodealliance/jco";
import { parseMovedMemoryField } from "../../../../src/plugins/wasm/instrument/abi.ts";
import { instrumentModule } from "../../../../src/plugins/wasm/instrument/module.ts";
import { instrumented, plain, wat } from "./helpers.ts";

/**
 * What instrumentation moves: the module's memories into imports (their indices unchanged) before the interrupt
 * flag, and with fuel an imported global before the defined ones (their indices shifted everywhere they appear).
 * Function indices never change: calls, ref.func, element segments, exports and the start function keep working.
 */

const host = { env: { base: new WebAssembly.Global({ value: "i32", mutable: false }, 100) } };

/** Globals everywhere they can be named: code, exports, initializers, segment offsets, the name section. */
const GLOBALS = `(module
  (import "env" "base" (global $base i32))
  (memory 1)
  (table 4 funcref)
  (global $counter (mut i32) (global.get $base))
  (global $offset i32 (i32.const 1))
  (global $ref funcref (ref.func $seven))
  (export "counter" (global $counter))
  (export "offset" (global $offset))
  (data (global.get $offset) "\\2a")
  (elem (global.get $offset) $seven)
  (func $seven (result i32) (i32.const 7))
  (func (export "run") (result i32)
    (global.set $counter (i32.add (global.get $counter) (i32.load8_u (i32.const 1))))
    (i32.add (global.get $counter) (call_indirect (result i32) (global.get $offset)))))`;

/** Function indices everywhere they can be named: calls, ref.func, both element segment forms, exports, start. */
const FUNCTIONS = `(module
  (import "env" "base" (global $base i32))
  (type $t (func (result i32)))
  (table 8 funcref)
  (global $started (mut i32) (i32.const 0))
  (func $one (result i32) (i32.const 1))
  (func $two (result i32) (i32.const 2))
  (func $init (global.set $started (i32.const 5)))
  (start $init)
  (elem (i32.const 0) $one $two)
  (elem (i32.const 2) funcref (ref.func $two) (ref.null func) (ref.func $one))
  (elem declare func $one)
  (export "two" (func $two))
  (func (export "run") (result i32)
    (i32.add (i32.add (call $one) (call_ref $t (ref.func $one)))
      (i32.add (i32.add (call_indirect (type $t) (i32.const 1)) (call_indirect (type $t) (i32.const 4)))
        (i32.add (global.get $started) (global.get $base))))))`;

describe("indices", () => {
  for (const metering of ["interrupt", "full"] as const) {
    test(`globals (${metering}): results, exported globals and initializers are unchanged`, async () => {
      const bytes = await wat(GLOBALS);
      const before = await plain(bytes, host);
      const inst = await instrumented(bytes, metering, { imports: host });
      expect(inst.run("run")).toMatchObject({ value: (before.run as () => number)() });
      for (const name of ["counter", "offset"]) {
        expect((inst.exports[name] as WebAssembly.Global).value).toBe((before[name] as WebAssembly.Global).value);
      }
    });

    test(`functions (${metering}): calls, ref.func, element segments, exports and start keep their targets`, async () => {
      const bytes = await wat(FUNCTIONS);
      const before = await plain(bytes, host);
      const inst = await instrumented(bytes, metering, { imports: host });
      expect(inst.run("run")).toMatchObject({ value: (before.run as () => number)() });
      expect((inst.exports.two as () => number)()).toBe(2);
    });
  }

  test('"full" imports the fuel global after the imported ones and renumbers the name section\'s globals', async () => {
    const text = await print(instrumentModule(await wat(GLOBALS), "m", "full").bytes);
    expect(text).toContain('(import "env" "base" (global $base (;0;) i32))');
    expect(text).toContain('(import "prx_interrupt" "fuel" (global (;1;) (mut i64)))');
    expect(text).toContain("(global $counter (;2;) (mut i32) global.get $base)");
    expect(text).toContain('(export "counter" (global $counter))');
  });

  test('"interrupt" adds no global and leaves the global and function sections as they are', async () => {
    const text = await print(instrumentModule(await wat(GLOBALS), "m", "interrupt").bytes);
    expect(text).not.toContain('"fuel"');
    expect(text).toContain("(global $counter (;1;) (mut i32) global.get $base)");
  });
});

describe("memories", () => {
  test("a defined memory becomes an import carrying its type; the flag memory follows it", async () => {
    const bytes = await wat(`(module (memory (export "memory") 2 17) (func (export "run") (result i32) (memory.size)))`);
    const rewritten = instrumentModule(bytes, "m", "interrupt").bytes;
    const imports = WebAssembly.Module.imports(new WebAssembly.Module(rewritten));
    expect(imports.map((i) => [i.module, i.name, i.kind])).toEqual([
      ["prx_interrupt", "memory:2:17:private", "memory"],
      ["prx_interrupt", "interrupt", "memory"],
    ]);
    expect(parseMovedMemoryField(imports[0]!.name)).toEqual({ initial: 2, maximum: 17, shared: false });
    const inst = await instrumented(bytes, "interrupt");
    expect(inst.run("run")).toMatchObject({ value: 2 });
    expect((inst.exports.memory as WebAssembly.Memory).buffer.byteLength).toBe(2 * 65536);
  });

  test("imported memories keep their index; a module without memory gets the flag as memory 0", async () => {
    const imported = await wat(`(module (import "env" "mem" (memory 1)) (memory 1) (func (export "run") (result i32)
      (i32.store (i32.const 0) (i32.const 9)) (i32.load (i32.const 0))))`);
    const names = (bytes: Uint8Array) =>
      WebAssembly.Module.imports(new WebAssembly.Module(bytes)).filter((i) => i.kind === "memory").map((i) => i.name);
    expect(names(instrumentModule(imported, "m", "interrupt").bytes)).toEqual(["mem", "memory:1:-:private", "interrupt"]);
    const none = await wat(`(module (func (export "run") (result i32) (i32.const 1)))`);
    expect(names(instrumentModule(none, "m", "interrupt").bytes)).toEqual(["interrupt"]);
    const mem = new WebAssembly.Memory({ initial: 1 });
    const inst = await instrumented(imported, "interrupt", { imports: { env: { mem } } });
    expect(inst.run("run")).toMatchObject({ value: 9 });
    expect(new Int32Array(mem.buffer)[0]).toBe(9); // memory 0 is still the imported one
  });
});

describe("custom sections", () => {
  test("sections describing code offsets are left out, with the reason; others are kept", async () => {
    const bytes = await wat(`(module (func nop) (@custom ".debug_line" "x") (@custom "metadata.code.branch_hint" "y") (@custom "keep" "z"))`);
    const { bytes: out, dropped } = instrumentModule(bytes, "m", "interrupt");
    expect(dropped).toEqual([
      ".debug_line (describes code offsets the instrumentation moved)",
      "metadata.code.branch_hint (describes code offsets the instrumentation moved)",
    ]);
    expect(WebAssembly.Module.customSections(new WebAssembly.Module(out), "keep")).toHaveLength(1);
  });
});
