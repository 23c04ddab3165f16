import { parse } from "@bytecodealliance/jco";
import { Meter, newInterruptFlag } from "../../../../src/plugins/wasm/guest/meter.ts";
import { instrumentModule } from "../../../../src/plugins/wasm/instrument/module.ts";
import type { Metering } from "../../../../src/plugins/wasm/instrument/plan.ts";

/** WAT text to a core module (jco's wasm-tools parser). */
export function wat(source: string): Promise<Uint8Array> {
  return parse(source);
}

export type Exports = Record<string, unknown>;
type Imports = NonNullable<Parameters<typeof WebAssembly.instantiate>[1]>;

/** Instantiate a module as it is. */
export async function plain(bytes: Uint8Array, imports: Record<string, Record<string, unknown>> = {}): Promise<Exports> {
  const { instance } = await WebAssembly.instantiate(bytes, imports as Imports);
  return instance.exports;
}

/**
 * Instrument a module and instantiate it the way the sandbox does (the meter provides the moved memories, the
 * interrupt flag and the fuel global); `run` calls an export as one metered call and reports its fuel.
 */
export async function instrumented(
  bytes: Uint8Array,
  metering: Metering,
  options: { maxFuel?: number; imports?: Record<string, Record<string, unknown>> } = {},
) {
  const rewritten = instrumentModule(bytes, "test module", metering);
  const module = await WebAssembly.compile(rewritten.bytes);
  const flag = newInterruptFlag();
  const maxFuel = options.maxFuel ?? (metering === "full" ? Number.MAX_SAFE_INTEGER : null);
  const meter = new Meter(flag, maxFuel);
  const instance = await WebAssembly.instantiate(module, { ...options.imports, ...meter.importsFor(module) } as Imports);
  const exports = instance.exports as Exports;
  return {
    bytes: rewritten.bytes,
    dropped: rewritten.dropped,
    exports,
    flag,
    meter,
    /** Call `name` as one metered call: its value (or the error it failed with) and the fuel it used. */
    run(name: string, ...args: unknown[]): { value?: unknown; error?: Error; fuel: number | null } {
      meter.begin(`test ${name}`);
      let value: unknown;
      let thrown: unknown;
      try {
        value = (exports[name] as (...a: unknown[]) => unknown)(...args);
      } catch (error) {
        thrown = error;
      }
      const stopped = meter.end();
      const error = stopped ?? (thrown as Error | undefined);
      return { ...(error ? { error } : { value }), fuel: meter.lastFuel() };
    },
  };
}
