/** Bare specifiers that resolve to the embedded worker runtime, in the source tree and in the compiled binary. */
export const WORKER_RUNTIME_SPECIFIERS = ["prx/worker-runtime", "@elizaos/plugin-worker-runtime"] as const;

let registered = false;

/**
 * Register a Bun runtime plugin mapping both specifiers to this very module instance, so a plugin entry loaded from
 * disk by the compiled binary (no node_modules, no tsconfig) shares the launcher's runtime. Once per thread.
 */
export async function registerWorkerRuntimeResolver(): Promise<void> {
  if (registered) return;
  registered = true;
  const runtime = (await import("./index.ts")) as unknown as Record<string, unknown>;
  Bun.plugin({
    name: "prx-worker-runtime",
    setup(build) {
      for (const specifier of WORKER_RUNTIME_SPECIFIERS) {
        build.module(specifier, () => ({ exports: runtime, loader: "object" }));
      }
    },
  });
}
