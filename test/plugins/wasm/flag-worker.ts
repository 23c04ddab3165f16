/**
 * A sandbox Worker stand-in for pool-worker.test.ts: told `{ type: "init", tenant }` it creates that tenant's
 * interrupt flag and sends it back as the real Worker does; told `{ type: "check", tenant, to }` it reports, as a log
 * line of tenant `to`, whether that flag is raised.
 */
import { newInterruptFlag } from "../../../src/plugins/wasm/guest/meter.ts";
import { INTERRUPT_FLAG_OFFSET } from "../../../src/plugins/wasm/instrument/abi.ts";

declare const self: Worker;
const flags = new Map<number, WebAssembly.Memory>();
self.onmessage = (event: MessageEvent) => {
  const msg = event.data as { type: string; tenant: number; to?: number };
  if (msg.type === "init") {
    const interrupt = newInterruptFlag();
    flags.set(msg.tenant, interrupt);
    self.postMessage({ type: "flag", tenant: msg.tenant, interrupt });
  } else if (msg.type === "check") {
    const flag = flags.get(msg.tenant);
    const raised = flag ? Atomics.load(new Int32Array(flag.buffer), INTERRUPT_FLAG_OFFSET / 4) : -1;
    self.postMessage({ type: "log", tenant: msg.to, level: "info", message: `raised ${raised}` });
  }
};
self.postMessage({ type: "booted" });
