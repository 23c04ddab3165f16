import { describe, expect, test } from "bun:test";
import { raiseInterrupt } from "../../../../src/plugins/wasm/guest/meter.ts";
import { instrumented, wat } from "./helpers.ts";

/**
 * Fuel units (FUEL.md): one per instruction executed, nop, drop, block, loop, else, end, try, catch, catch_all,
 * delegate, try_table, unreachable and return free. The counts below are worked out by hand from each body.
 */
const COUNTED = `(module
  (tag $e (param i32))
  ;; a loop: 4 per header pass (n + 1 of them), 9 per iteration, 1 after: 13n + 5
  (func $sum (export "sum") (param $n i32) (result i32) (local $i i32) (local $acc i32)
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $acc (i32.add (local.get $acc) (local.get $i)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (local.get $acc))
  ;; a diamond: 2 before, then-arm 1 or else-arm 3, 2 after: 5 / 7
  (func $pick (export "pick") (param $x i32) (result i32)
    (if (result i32) (local.get $x) (then (i32.const 10)) (else (i32.add (i32.const 1) (i32.const 2))))
    (i32.const 5) (i32.add))
  ;; an if without else: 4, then-arm 4, 1 after: 9 when negative, else 5
  (func (export "abs") (param $x i32) (result i32)
    (if (i32.lt_s (local.get $x) (i32.const 0)) (then (local.set $x (i32.sub (i32.const 0) (local.get $x)))))
    (local.get $x))
  ;; br_table: 2, then the arm: 3 (x = 0), 1 (x = 1), 3 (otherwise); return is free
  (func (export "switch") (param $x i32) (result i32)
    (block $c (block $b (block $a (br_table $a $b $c (local.get $x)))
        (return (i32.add (i32.const 1) (i32.const 99))))
      (return (i32.const 200)))
    (i32.mul (i32.const 3) (i32.const 100)))
  ;; a block left early by a return: 2, then 1 (x = 0: return) or 3 (x != 0: after the block)
  (func (export "early") (param $x i32) (result i32)
    (block $b (br_if $b (local.get $x)) (return (i32.const 1)))
    (i32.add (i32.const 2) (i32.const 3)))
  ;; calls: local.get, call, local.get, call, add = 5, plus both calls of pick
  (func (export "twice") (param $x i32) (result i32)
    (i32.add (call $pick (local.get $x)) (call $pick (local.get $x))))
  ;; exception handlers (fuel in the global there): const + throw = 2, caught, then const + add = 2
  (func (export "caught") (result i32)
    (block $h (result i32) (try_table (result i32) (catch $e $h) (throw $e (i32.const 5))))
    (i32.const 1) (i32.add))
  ;; ... and when nothing throws: const = 1, then 2
  (func (export "uncaught") (result i32)
    (block $h (result i32) (try_table (result i32) (catch $e $h) (i32.const 5)))
    (i32.const 1) (i32.add))
  ;; nop and drop are free, what they drop is not: 3 consts + add = 4
  (func (export "free") (result i32) nop (drop (i32.const 9)) (i32.add (i32.const 1) (i32.const 2))))`;

const CASES: [string, number, number][] = [
  ["sum", 0, 5],
  ["sum", 3, 44],
  ["sum", 1000, 13_005],
  ["pick", 1, 5],
  ["pick", 0, 7],
  ["abs", -4, 9],
  ["abs", 4, 5],
  ["switch", 0, 5],
  ["switch", 1, 3],
  ["switch", 7, 5],
  ["early", 0, 3],
  ["early", 1, 5],
  ["twice", 1, 5 + 5 + 5],
  ["twice", 0, 5 + 7 + 7],
];

describe("fuel units", () => {
  test("each call is charged the instructions it executed", async () => {
    const inst = await instrumented(await wat(COUNTED), "full");
    for (const [fn, arg, fuel] of CASES) expect([fn, arg, inst.run(fn, arg).fuel]).toEqual([fn, arg, fuel]);
    expect(inst.run("caught")).toEqual({ value: 6, fuel: 4 });
    expect(inst.run("uncaught")).toEqual({ value: 6, fuel: 3 });
    expect(inst.run("free")).toEqual({ value: 3, fuel: 4 });
  });

  test("a budget of exactly what a call needs passes; one unit less traps with a fuel failure", async () => {
    const need = 13 * 1000 + 5;
    const exact = await instrumented(await wat(COUNTED), "full", { maxFuel: need });
    expect(exact.run("sum", 1000)).toEqual({ value: 499_500, fuel: need });
    const short = await instrumented(await wat(COUNTED), "full", { maxFuel: need - 1 });
    const { error, fuel } = short.run("sum", 1000);
    expect(error?.message).toBe(
      `test sum ran out of fuel: it needed more than max_fuel = ${need - 1} units (about one WebAssembly instruction each)`,
    );
    expect(fuel).toBeGreaterThan(need - 1);
  });

  test("running out after the last check (a call without loops or calls) fails when the call returns", async () => {
    const inst = await instrumented(await wat(COUNTED), "full", { maxFuel: 4 });
    const { error, fuel } = inst.run("pick", 1);
    expect(fuel).toBe(5);
    expect(error?.message).toContain("test pick ran out of fuel: it needed more than max_fuel = 4 units");
  });
});

describe("the interrupt flag", () => {
  const SPIN = `(module (func (export "spin") (param $n i32) (result i32) (loop $l (br_if $l (local.get $n))) (i32.const 1)))`;

  for (const metering of ["interrupt", "full"] as const) {
    test(`a raised flag stops a guest at its next check (${metering})`, async () => {
      const inst = await instrumented(await wat(SPIN), metering);
      expect(inst.run("spin", 0)).toMatchObject({ value: 1 });
      raiseInterrupt(inst.flag);
      const { error } = inst.run("spin", 1);
      expect(error?.message).toBe("test spin was interrupted: its sandbox is stopping");
    });
  }
});
