import { expect, test } from "bun:test";
import { EXECUTION_TIME_SAMPLES } from "../../../src/plugins/wasm/limits.ts";
import { ExecutionTimes } from "../../../src/plugins/wasm/sandbox/execution-times.ts";

test("the latest execution time is the last sample added, also once the ring has wrapped", () => {
  const times = new ExecutionTimes();
  expect(times.last()).toBeNull();
  times.add(7);
  expect(times.last()).toBe(7);
  for (let i = 1; i <= EXECUTION_TIME_SAMPLES + 3; i++) times.add(i);
  expect(times.last()).toBe(EXECUTION_TIME_SAMPLES + 3);
  expect(times.size()).toBe(EXECUTION_TIME_SAMPLES);
});
