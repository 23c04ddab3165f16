/**
 * A channel process's JIT policy (a kept trick, src/boot/tricks.ts). A chat's turn spends its time waiting on the
 * platform and the provider; the JavaScript it runs per message is small, so the JIT's tiers mostly compile code that
 * runs a few hundred times, and their compilers' pages and output stay resident. The process starts with the JIT
 * CHANNEL_JIT_POLICY times more reluctant and takes the normal policy for good once it is busy: CHANNEL_BUSY_IN_FLIGHT
 * messages stored and not answered at once (a burst, many chats at a time), where compiled code pays for itself.
 */
export const CHANNEL_JIT_POLICY = 1000;

/** Messages in flight at once from which the process runs with the normal JIT (a one-way switch). */
export const CHANNEL_BUSY_IN_FLIGHT = 8;

export interface ChannelJit {
  /** The runner's count of messages in flight, at every change. */
  inFlight(count: number): void;
  /** Whether the process still runs with the reluctant policy. */
  readonly reluctant: boolean;
}

/** Sets the reluctant policy now; `setPolicy` is Bun.unsafe.setJITPolicy outside tests. */
export function startChannelJit(setPolicy: (scale: number) => void = (scale) => Bun.unsafe.setJITPolicy(scale)): ChannelJit {
  setPolicy(CHANNEL_JIT_POLICY);
  let reluctant = true;
  return {
    inFlight(count) {
      if (!reluctant || count < CHANNEL_BUSY_IN_FLIGHT) return;
      reluctant = false;
      setPolicy(1);
    },
    get reluctant() {
      return reluctant;
    },
  };
}
