import {
  INTERRUPT_FLAG_FIELD,
  INTERRUPT_FLAG_OFFSET,
  INTERRUPT_FLAG_WORDS,
  INTERRUPT_FUEL_FIELD,
  INTERRUPT_IMPORT_MODULE,
  parseMovedMemoryField,
} from "../instrument/abi.ts";
import { GuestFailure } from "./types.ts";

/** Fuel in the global between calls (instantiation is not metered): more than any call can use. */
const IDLE_FUEL = 2n ** 62n;

/**
 * The interrupt flag memory of one plugin's sandbox (a new one per incarnation): one shared page, the flag an i32 at
 * INTERRUPT_FLAG_OFFSET.
 */
export function newInterruptFlag(): WebAssembly.Memory {
  return new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
}

/** Raise the flag (both of its words, FUEL.md): every instrumented guest of that sandbox traps at its next check. */
export function raiseInterrupt(flag: WebAssembly.Memory): void {
  const words = new Int32Array(flag.buffer);
  for (let i = 0; i < INTERRUPT_FLAG_WORDS; i++) Atomics.store(words, INTERRUPT_FLAG_OFFSET / 4 + i, 1);
}

/**
 * The host side of one instance's instrumentation (FUEL.md in instrument/): what its core modules import from
 * `prx_interrupt` — their own memories (moved into imports, created here), the sandbox's interrupt flag, and with
 * max_fuel the fuel global all of them share — and the verdict on a call: an instrumented guest stops by trapping
 * (`unreachable`), and `end` tells whether that trap was the interrupt (the call timed out, the Worker is being
 * terminated) or fuel exhaustion, which the guest cannot catch or hide.
 */
export class Meter {
  private readonly fuel = new WebAssembly.Global({ value: "i64", mutable: true }, IDLE_FUEL);
  private readonly flagView: Int32Array;
  private where = "";
  private last: number | null = null;

  constructor(
    private readonly flag: WebAssembly.Memory,
    private readonly maxFuel: number | null,
  ) {
    this.flagView = new Int32Array(flag.buffer);
  }

  /** The `prx_interrupt` imports of one core module (memories it defined are created fresh for each instance). */
  importsFor(module: WebAssembly.Module): Record<string, Record<string, WebAssembly.Memory | WebAssembly.Global>> {
    const fields: Record<string, WebAssembly.Memory | WebAssembly.Global> = {};
    for (const { module: from, name } of WebAssembly.Module.imports(module)) {
      if (from !== INTERRUPT_IMPORT_MODULE) continue;
      if (name === INTERRUPT_FLAG_FIELD) fields[name] = this.flag;
      else if (name === INTERRUPT_FUEL_FIELD) fields[name] = this.fuel;
      else {
        const memory = parseMovedMemoryField(name);
        if (!memory) throw new Error(`instrumented module imports an unknown ${INTERRUPT_IMPORT_MODULE}.${name}`);
        fields[name] = new WebAssembly.Memory({
          initial: memory.initial,
          ...(memory.maximum !== null ? { maximum: memory.maximum } : {}),
          shared: memory.shared,
        });
      }
    }
    return { [INTERRUPT_IMPORT_MODULE]: fields };
  }

  /** Start a call (`where` names plugin, capability and function for the errors): its whole budget, at once. */
  begin(where: string): void {
    this.where = where;
    if (this.maxFuel !== null) this.fuel.value = BigInt(this.maxFuel);
  }

  /**
   * Close the call: the failure it ended in, if the instrumentation stopped it — the interrupt, or fuel below zero
   * (a check trapped, or the call used more than max_fuel after its last check) — else null.
   */
  end(): GuestFailure | null {
    let left = 0n;
    if (this.maxFuel !== null) {
      left = this.fuel.value as bigint;
      this.fuel.value = IDLE_FUEL;
      this.last = Number(BigInt(this.maxFuel) - left);
    }
    if (Atomics.load(this.flagView, INTERRUPT_FLAG_OFFSET / 4) !== 0) {
      return new GuestFailure("timeout", `${this.where} was interrupted: its sandbox is stopping`, true);
    }
    if (left < 0n) {
      return new GuestFailure(
        "fuel",
        `${this.where} ran out of fuel: it needed more than max_fuel = ${this.maxFuel} units ` +
          "(about one WebAssembly instruction each)",
        true,
      );
    }
    return null;
  }

  /** Fuel the last call used (FUEL.md), null without max_fuel (nothing is counted then). */
  lastFuel(): number | null {
    return this.last;
  }
}
