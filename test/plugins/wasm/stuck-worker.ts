/**
 * A sandbox Worker stand-in for pool-worker.test.ts: it boots and then, told "spin", spins in JavaScript for good,
 * as a guest the interrupt flag cannot reach would: it never answers the "stop" that follows.
 */
declare const self: Worker;
self.onmessage = (event: MessageEvent) => {
  if (event.data === "spin") for (;;);
};
self.postMessage({ type: "booted" });
