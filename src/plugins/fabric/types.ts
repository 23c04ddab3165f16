/** Time as the fabric reads it, and its repeating timer (tests give a clock they move by hand). */
export interface FabricClock {
  now(): number;
  /** Call `fn` every `ms` until cancelled; the timer does not keep the process alive. */
  every(fn: () => unknown, ms: number): { cancel(): void };
}
