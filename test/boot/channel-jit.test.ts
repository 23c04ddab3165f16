/**
 * A channel process's JIT policy: reluctant from its start, the normal policy for good from CHANNEL_BUSY_IN_FLIGHT
 * messages in flight at once (the policy setter is injected; Bun.unsafe.setJITPolicy outside tests).
 */
import { expect, test } from "bun:test";
import { CHANNEL_BUSY_IN_FLIGHT, CHANNEL_JIT_POLICY, startChannelJit } from "../../src/boot/channel-jit.ts";

test(`the process starts reluctant (x${CHANNEL_JIT_POLICY}); ${CHANNEL_BUSY_IN_FLIGHT - 1} in flight keep it so, ${CHANNEL_BUSY_IN_FLIGHT} switch to the normal JIT once`, () => {
  const set: number[] = [];
  const jit = startChannelJit((scale) => set.push(scale));
  expect(set).toEqual([CHANNEL_JIT_POLICY]);
  for (let count = 1; count < CHANNEL_BUSY_IN_FLIGHT; count++) jit.inFlight(count);
  expect(jit.reluctant).toBe(true);
  expect(set).toEqual([CHANNEL_JIT_POLICY]);
  jit.inFlight(CHANNEL_BUSY_IN_FLIGHT);
  expect(jit.reluctant).toBe(false);
  expect(set).toEqual([CHANNEL_JIT_POLICY, 1]);
  // quiet again, then busy again: the switch is one-way and made once
  jit.inFlight(1);
  jit.inFlight(CHANNEL_BUSY_IN_FLIGHT + 1);
  expect(set).toEqual([CHANNEL_JIT_POLICY, 1]);
});

test("the policy it sets is one Bun accepts", () => {
  // the real setter: a scale < 1 or not finite throws; ours must not, and the test thread goes back to normal
  const jit = startChannelJit();
  jit.inFlight(CHANNEL_BUSY_IN_FLIGHT);
  expect(jit.reluctant).toBe(false);
});
