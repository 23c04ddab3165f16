/** A plugin's sandbox: its Worker (pre-started in a pool), the calls to it and the host functions it calls back. */
export { Sandbox, type SandboxOptions } from "./sandbox.ts";
export { sandboxWorkerPool } from "./pool.ts";
export type { EventSubscriber } from "./host-rpc.ts";
