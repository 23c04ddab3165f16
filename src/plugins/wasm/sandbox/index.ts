/** A plugin's sandbox: a tenant of a shared pool Worker, the calls to it and the host functions it calls back. */
export { Sandbox, type SandboxOptions } from "./sandbox.ts";
export { sandboxWorkerPool } from "./pool.ts";
export type { EventSubscriber } from "./host-rpc.ts";
