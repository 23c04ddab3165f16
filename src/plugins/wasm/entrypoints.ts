/**
 * Worker entry files `bun build --compile` must add as extra entrypoints (paths relative to the repo root).
 * Both must stay in one folder (sandbox/): preview2-shim looks for its I/O worker next to the sandbox worker. See EMBEDDING.md.
 * Kept in its own file so build.ts can read it without loading the engine.
 */
export const WASM_WORKER_ENTRYPOINTS = [
  "src/plugins/wasm/sandbox/worker.ts",
  "src/plugins/wasm/sandbox/worker-thread.bundle.ts",
] as const;
