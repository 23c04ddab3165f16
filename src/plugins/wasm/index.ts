/** WASM engine: component and core-module loaders, sandbox Workers, host ABI. */
export { wasmLoader } from "./loader.ts";
export { WasmPluginInstance } from "./instance.ts";
export { transpileCount, transpileCached } from "./transpile.ts";
export { compileCount } from "./artifact-cache.ts";
export { instrumentCount } from "./instrument-cache.ts";
export { sandboxWorkerPool, type EventSubscriber } from "./sandbox/index.ts";
export { allowlistMatches } from "./host/http-outbound.ts";
export { PRX_WIT_VERSION, WIT_FILES, combinedWitSource } from "./wit.ts";
export { exportsInterfaceName } from "./contract-names.ts";
export { REQUIRED_EXPORTS } from "./guest/types.ts";
export { inspectWasm, type WasmInspection } from "./inspect.ts";
export { wasmBuildPlugin } from "./build-plugin.ts";
export * from "./limits.ts";

export { WASM_WORKER_ENTRYPOINTS } from "./entrypoints.ts";
