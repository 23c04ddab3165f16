import { INTERRUPT_CHECK_FIELD, INTERRUPT_FUEL_FIELD, INTERRUPT_IMPORT_MODULE } from "../instrument/abi.ts";
import { FUEL_CHUNK } from "../limits.ts";
import { GuestFailure } from "./types.ts";

const CHUNK = BigInt(FUEL_CHUNK);

/** Slot of the interrupt flag in the Int32Array the main thread shares with a sandbox Worker. */
export const INTERRUPT_SLOT = 0;

/**
 * The host side of one instance's instrumentation (FUEL.md in instrument/): the fuel global every core module of
 * the instance imports, and the `check` they call when it drops below zero. Between calls (instantiation) fuel is
 * unlimited; `begin` starts a call's count, `end` closes it. `check` throws — and keeps throwing at every later
 * function entry and loop header, even if the guest catches it — when the sandbox's interrupt flag is raised (the
 * call timed out, the Worker is being terminated) or the call has used more than max_fuel.
 */
export class FuelMeter {
  readonly global = new WebAssembly.Global({ value: "i64", mutable: true }, CHUNK);
  /** Fuel put into the global since `begin` (consumed = granted - what is left in it). */
  private granted = CHUNK;
  private budget: bigint | null = null;
  private where = "";
  private failure: GuestFailure | null = null;
  private last = 0;

  constructor(
    /** The Worker's interrupt flag (INTERRUPT_SLOT), raised by the main thread. */
    private readonly interrupt: Int32Array<ArrayBufferLike>,
    private readonly maxFuel: number | null,
  ) {}

  /** The imports an instrumented core module needs, to merge into its import object. */
  imports(): Record<string, Record<string, WebAssembly.Global | (() => void)>> {
    return { [INTERRUPT_IMPORT_MODULE]: { [INTERRUPT_CHECK_FIELD]: this.check, [INTERRUPT_FUEL_FIELD]: this.global } };
  }

  /** Start counting a call (`where` names plugin, capability and function for the errors). */
  begin(where: string): void {
    this.where = where;
    this.failure = null;
    this.budget = this.maxFuel === null ? null : BigInt(this.maxFuel);
    this.grant(0n);
  }

  /**
   * Close the call: its fuel (kept for lastFuel) and the failure it ended in, if any — the one `check` threw, or
   * fuel exhaustion found only now (the call used more than max_fuel after its last check).
   */
  end(): GuestFailure | null {
    const used = this.used();
    this.last = Number(used);
    const failure = this.failure ?? (this.budget !== null && used > this.budget ? this.exhausted() : null);
    this.budget = null;
    this.failure = null;
    this.grant(0n);
    return failure;
  }

  /** Fuel of the last call that ended. */
  lastFuel(): number {
    return this.last;
  }

  private used(): bigint {
    return this.granted - (this.global.value as bigint);
  }

  private grant(used: bigint): void {
    const left = this.budget === null ? CHUNK : this.budget - used;
    const chunk = left < CHUNK ? left : CHUNK;
    this.global.value = chunk;
    this.granted = used + chunk;
  }

  private exhausted(): GuestFailure {
    return new GuestFailure(
      "fuel",
      `${this.where} ran out of fuel: it needed more than max_fuel = ${this.maxFuel} units ` +
        "(about one WebAssembly instruction each)",
      true,
    );
  }

  /** Called by the guest when the fuel global is below zero. Leaves it below zero when it throws. */
  private readonly check = (): void => {
    if (this.failure) throw this.failure;
    if (Atomics.load(this.interrupt, INTERRUPT_SLOT) !== 0) {
      this.failure = new GuestFailure("timeout", `${this.where || "the guest"} was interrupted: its sandbox is stopping`, true);
      throw this.failure;
    }
    const used = this.used();
    if (this.budget !== null && used > this.budget) {
      this.failure = this.exhausted();
      throw this.failure;
    }
    this.grant(used);
  };
}
