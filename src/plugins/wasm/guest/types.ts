import type { CapabilityType } from "../../types.ts";

/** One capability instance inside the sandbox (component or core module). */
export interface Guest {
  /** Call a WIT export by its WIT name; resolves the jco-mapped value or throws a GuestFailure. */
  call(fn: string, args: unknown[]): Promise<unknown>;
  /** Bytes of linear memory the instance holds now. */
  memoryBytes(): number;
  /** Fuel the last call used (units of FUEL.md in instrument/), null without max_fuel or before the first call. */
  lastFuel(): number | null;
}

export type FailureKind = "error" | "trap" | "timeout" | "fuel" | "output" | "memory";

/** A failed call, as it crosses from the worker to the main thread. `poison` re-instantiates the instance. */
export class GuestFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly poison: boolean,
  ) {
    super(message);
  }
}

/** Exports each capability type needs (WIT names). */
export const REQUIRED_EXPORTS: Readonly<Record<CapabilityType, readonly string[]>> = {
  tool: ["get-spec", "execute"],
  middleware: ["process"],
  hook: ["on-event"],
  cron: ["run"],
  provider: ["name", "chat"],
  storage: ["name", "store-memory", "recall-memory", "forget-memory", "count-memories", "health-check"],
};

export function camelCase(witName: string): string {
  return witName.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

export function snakeCase(witName: string): string {
  return witName.replace(/-/g, "_");
}
