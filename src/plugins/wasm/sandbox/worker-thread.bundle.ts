/**
 * Compiled-binary stand-in for preview2-shim's I/O worker. The shim (imported by worker.ts) starts
 * `new Worker(new URL("./worker-thread.bundle.js", import.meta.url))`; in a `bun build --compile` binary that URL
 * points next to the sandbox worker entry, so this file must be an entrypoint in this folder (WASM_WORKER_ENTRYPOINTS).
 */
import "../../../../node_modules/@bytecodealliance/preview2-shim/dist/io/worker-thread.bundle.js";
