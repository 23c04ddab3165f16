import { describe, expect, test } from "bun:test";
import { print } from "@bytecodealliance/jco";
import { isPrxError } from "../../../../src/core/errors.ts";
import { instrumentModule } from "../../../../src/plugins/wasm/instrument/module.ts";
import { failureOf } from "./failure.ts";
import { instrumented, plain, wat } from "./helpers.ts";

/**
 * The rewriter decodes every instruction family a toolchain may emit: each module below uses one family, keeps
 * validating after both meterings, prints (wasm-tools reads every byte), and computes the same result.
 */
const FAMILIES: Record<string, string> = {
  "MVP control, memory, numeric, call_indirect, br_table, select": `(module
    (memory 1) (global $g (mut i32) (i32.const 0)) (table 2 funcref) (type $t (func (param i32) (result i32)))
    (func $twice (param i32) (result i32) (i32.mul (local.get 0) (i32.const 2)))
    (elem (i32.const 0) $twice)
    (func (export "run") (result i32) (local $x i32) (local $y i64)
      (block $b (loop $l
        (br_if $b (i32.ge_u (local.get $x) (i32.const 10)))
        (local.set $x (i32.add (local.get $x) (i32.const 1)))
        (br $l)))
      (i32.store (i32.const 8) (local.get $x)) (i64.store (i32.const 16) (i64.const -5))
      (f32.store (i32.const 24) (f32.const 1.5)) (f64.store (i32.const 32) (f64.const 2.5))
      (local.set $y (i64.extend_i32_s (i32.load8_s (i32.const 8))))
      (drop (memory.grow (i32.const 0))) nop
      (global.set $g (i32.add (local.get $x) (memory.size)))
      (block $c (block $d (br_table $d $c (i32.const 1))) (global.set $g (i32.const 0)))
      (select
        (call_indirect (type $t) (i32.add (global.get $g) (i32.wrap_i64 (local.get $y))) (i32.const 0))
        (i32.const -1)
        (i32.trunc_f64_s (f64.load (i32.const 32))))))`,
  "sign extension and saturating truncation": `(module (func (export "run") (result i32)
    (i32.add (i32.extend8_s (i32.const 0xff)) (i32.trunc_sat_f32_s (f32.const 1e20)))))`,
  "bulk memory and table operations": `(module (memory 1) (data $d "abc") (table 2 funcref) (elem $e func $f) (func $f)
    (func (export "run") (result i32)
      (memory.init $d (i32.const 0) (i32.const 0) (i32.const 3)) (data.drop $d)
      (memory.copy (i32.const 4) (i32.const 0) (i32.const 3)) (memory.fill (i32.const 8) (i32.const 7) (i32.const 2))
      (table.init $e (i32.const 0) (i32.const 0) (i32.const 1)) (elem.drop $e)
      (table.copy (i32.const 1) (i32.const 0) (i32.const 1))
      (drop (table.grow (ref.null func) (i32.const 1))) (table.fill (i32.const 2) (ref.null func) (i32.const 1))
      (i32.add (table.size) (i32.load (i32.const 4)))))`,
  "reference types": `(module (table $t 1 externref) (func $f) (elem declare func $f)
    (func (export "run") (result i32)
      (table.set $t (i32.const 0) (ref.null extern)) (drop (table.get $t (i32.const 0)))
      (drop (ref.func $f))
      (ref.is_null (select (result externref) (ref.null extern) (table.get $t (i32.const 0)) (i32.const 1)))))`,
  "multi-value blocks and if with parameters": `(module (func (export "run") (result i32)
    (block (result i32 i32) (i32.const 1) (i32.const 2))
    (if (param i32) (result i32) (i32.const 1) (then (i32.const 3) (i32.add)) (else (drop) (i32.const 0)))
    (i32.add)))`,
  "SIMD and relaxed SIMD": `(module (memory 1) (func (export "run") (result i32) (local v128)
    (local.set 0 (v128.const i32x4 1 2 3 4)) (v128.store (i32.const 0) (local.get 0))
    (drop (v128.load (i32.const 0)))
    (drop (i8x16.shuffle 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 (local.get 0) (local.get 0)))
    (drop (v128.load8_lane 1 (i32.const 0) (local.get 0))) (drop (v128.load32_zero (i32.const 0)))
    (local.set 0 (i32x4.replace_lane 2 (local.get 0) (i32.const 9)))
    (drop (i32x4.relaxed_trunc_f32x4_s (local.get 0)))
    (i32x4.extract_lane 2 (i32x4.add (local.get 0) (local.get 0)))))`,
  "threads (atomics)": `(module (memory 1 1 shared) (func (export "run") (result i32)
    (atomic.fence) (drop (i32.atomic.rmw.add (i32.const 0) (i32.const 5)))
    (drop (memory.atomic.notify (i32.const 0) (i32.const 1)))
    (drop (i32.atomic.rmw.cmpxchg (i32.const 0) (i32.const 5) (i32.const 6)))
    (i64.atomic.store (i32.const 8) (i64.const 3))
    (i32.add (i32.atomic.load (i32.const 0)) (i32.wrap_i64 (i64.atomic.load (i32.const 8))))))`,
  "exception handling, legacy (try, catch, catch_all, delegate, rethrow)": `(module (tag $e (param i32))
    (func $thr (param i32) (throw $e (local.get 0)))
    (func (export "run") (result i32)
      try (result i32)
        try
          i32.const 4
          call $thr
        delegate 0
        i32.const 0
      catch $e
        try (result i32)
          i32.const 1
          call $thr
          i32.const 0
        catch_all
          i32.const 10
        end
        i32.add
      end))`,
  "exception handling, exnref (try_table, throw_ref)": `(module (tag $e (param i32))
    (func $thr (param i32) (throw $e (local.get 0)))
    (func $rethrows (block $h (result exnref) (try_table (catch_all_ref $h) (call $thr (i32.const 2))) (unreachable))
      (throw_ref))
    (func (export "run") (result i32)
      (i32.add
        (block $h (result i32) (try_table (result i32) (catch $e $h) (call $thr (i32.const 5)) (i32.const 0)))
        (block $k (result i32) (try_table (result i32) (catch $e $k) (call $rethrows) (i32.const 0))))))`,
  "tail calls": `(module (type $t (func (param i32) (result i32))) (table 1 funcref) (elem (i32.const 0) $down)
    (func $down (param i32) (result i32)
      (if (result i32) (i32.eqz (local.get 0)) (then (i32.const 42))
        (else (return_call_indirect (type $t) (i32.sub (local.get 0) (i32.const 1)) (i32.const 0)))))
    (func (export "run") (result i32) (return_call $down (i32.const 1000))))`,
  "typed function references": `(module (type $t (func (result i32))) (func $a (result i32) (i32.const 3)) (elem declare func $a)
    (func $tail (result i32) (return_call_ref $t (ref.func $a)))
    (func (export "run") (result i32) (local $r (ref null $t))
      (local.set $r (ref.func $a))
      (block $null (br_on_null $null (local.get $r)) (drop))
      (i32.add (call_ref $t (ref.as_non_null (local.get $r))) (call $tail))))`,
  "GC (structs, arrays, casts, i31)": `(module (type $s (struct (field (mut i32)) (field i64))) (type $a (array (mut i8)))
    (func (export "run") (result i32) (local $r (ref null $s))
      (local.set $r (struct.new $s (i32.const 4) (i64.const 5)))
      (struct.set $s 0 (local.get $r) (i32.const 6))
      (drop (ref.test (ref $s) (local.get $r))) (drop (ref.cast (ref null $s) (local.get $r)))
      (drop (block $x (result anyref) (br_on_cast $x anyref (ref $s) (local.get $r)) (drop) (ref.null any)))
      (drop (any.convert_extern (ref.null extern)))
      (i32.add (struct.get $s 0 (local.get $r))
        (i32.add (array.len (array.new $a (i32.const 1) (i32.const 3))) (i31.get_s (ref.i31 (i32.const 7)))))))`,
  "multi-memory": `(module (memory $a 1) (memory $b 1) (func (export "run") (result i32)
    (i32.store $b (i32.const 0) (i32.const 5)) (memory.copy $a $b (i32.const 0) (i32.const 0) (i32.const 4))
    (i32.add (i32.load $a (i32.const 0)) (memory.size $b))))`,
};

describe("instruction families", () => {
  for (const [family, source] of Object.entries(FAMILIES)) {
    test(family, async () => {
      const bytes = await wat(source);
      expect(WebAssembly.validate(bytes)).toBe(true);
      const expected = ((await plain(bytes)).run as () => unknown)();
      for (const metering of ["interrupt", "full"] as const) {
        const inst = await instrumented(bytes, metering);
        expect(WebAssembly.validate(inst.bytes)).toBe(true);
        expect(await print(inst.bytes)).toContain('(import "prx_interrupt" "interrupt"');
        expect(inst.run("run")).toMatchObject({ value: expected });
      }
    });
  }
});

/** A module whose only function body is `nop, end`: the nop's offset is where a test writes another opcode. */
async function patchable(): Promise<{ bytes: Uint8Array; at: number }> {
  const bytes = await wat(`(module (func nop))`);
  const at = bytes.length - 2; // ... 0x01 (nop) 0x0b (end)
  expect([bytes[at], bytes[at + 1]]).toEqual([0x01, 0x0b]);
  return { bytes, at };
}

describe("what the rewriter refuses", () => {
  const cases: [string, number[], string][] = [
    ["an unassigned single-byte opcode", [0x27], "unknown instruction opcode 0x27"],
    ["an unknown 0xFC (misc) opcode", [0xfc, 0x63], "unknown instruction opcode 0xfc 99"],
    ["an unassigned SIMD opcode", [0xfd, 0x9a, 0x01], "unknown instruction opcode 0xfd 154"],
    ["an unknown atomic opcode", [0xfe, 0x7f], "unknown instruction opcode 0xfe 127"],
    ["an unknown GC opcode (stringref)", [0xfb, 0x80, 0x01], "unknown instruction opcode 0xfb 128"],
  ];
  for (const [name, opcode, message] of cases) {
    test(`${name}: PLUGIN_LOAD naming the opcode and its offset`, async () => {
      const { bytes, at } = await patchable();
      const broken = new Uint8Array([...bytes.subarray(0, at), ...opcode, ...bytes.subarray(at + 1)]);
      // the size prefixes grow with the opcode: rebuild them (code section and body) the simple way
      const fixed = resize(broken, at, opcode.length - 1);
      const error = failureOf(() => instrumentModule(fixed, "plugin odd (component.core.wasm)", "interrupt"));
      expect(isPrxError(error, "PLUGIN_LOAD")).toBe(true);
      expect(error.message).toContain("plugin odd (component.core.wasm)");
      expect(error.message).toContain(`${message} at byte offset 0x${at.toString(16)}`);
    });
  }

  test("an import from prx_interrupt (the name is reserved)", async () => {
    const bytes = await wat(`(module (import "prx_interrupt" "interrupt" (memory 1 1 shared)))`);
    expect(failureOf(() => instrumentModule(bytes, "m", "interrupt")).message).toContain('imports from "prx_interrupt"');
  });

  test("a truncated module and an unknown section", async () => {
    const bytes = await wat(`(module (func nop))`);
    expect(failureOf(() => instrumentModule(bytes.subarray(0, bytes.length - 1), "m", "full")).message).toContain(
      "run past the end",
    );
    const unknown = new Uint8Array([...bytes.subarray(0, 8), 0x7f, 0x00]);
    expect(failureOf(() => instrumentModule(unknown, "m", "full")).message).toContain("unknown section id 127");
  });
});

/** Add `grow` bytes to the code section's and the single body's size prefixes (single-byte LEBs in these tests). */
function resize(bytes: Uint8Array, at: number, grow: number): Uint8Array {
  const out = bytes.slice();
  // layout of `(module (func nop))`: ... 0x0a <section size> 0x01 <body size> 0x00 0x01 0x0b
  const bodySize = at - 2;
  const sectionSize = at - 4;
  out[bodySize] = out[bodySize]! + grow;
  out[sectionSize] = out[sectionSize]! + grow;
  return out;
}
