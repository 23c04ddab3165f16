/** WASM engine: component and core-module loaders, sandbox Workers, host ABI. */
export { wasmLoader } from "./loader.ts";
export { WasmPluginInstance } from "./instance.ts";
export type { EventSubscriber } from "./sandbox.ts";
export { transpileCount, transpileCached } from "./transpile.ts";
export { KV_DDL } from "./host/kv.ts";
export { allowlistMatches } from "./host/http-outbound.ts";
export { PRX_WIT_VERSION, HOST_WIT_SOURCE, PLUGIN_WIT_SOURCE, combinedWitSource } from "./wit.ts";
export { REQUIRED_EXPORTS } from "./guest/types.ts";
export { inspectWasm, type WasmInspection } from "./inspect.ts";
export { wasmBuildPlugin } from "./build-plugin.ts";
export * from "./limits.ts";

/**
 * Worker entry files `bun build --compile` must add as extra entrypoints (paths relative to the repo root).
 * Both must stay in this folder: preview2-shim looks for its I/O worker next to the sandbox worker. See EMBEDDING.md.
 */
export const WASM_WORKER_ENTRYPOINTS = [
  "src/plugins/wasm/sandbox-worker.ts",
  "src/plugins/wasm/worker-thread.bundle.ts",
] as const;
