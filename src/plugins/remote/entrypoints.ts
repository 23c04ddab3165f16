/**
 * What `bun build --compile` needs for remote plugins, importable by build.ts without loading the subsystem.
 * Paths are relative to the repository root.
 */
export const REMOTE_WORKER_ENTRYPOINTS = ["src/plugins/remote/worker-runtime/worker-entry.ts"] as const;

/** argv[2] with which the compiled binary starts itself as a remote plugin subprocess (see child-main.ts). */
export const REMOTE_CHILD_ARG = "__remote-plugin-child";
