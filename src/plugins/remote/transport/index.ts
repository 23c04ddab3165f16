/** The host side of a remote plugin's Worker or subprocess: JSON texts in and out, its exit, its stderr. */
export {
  isCompiledBinary,
  pluginEnvironment,
  REMOTE_CHILD_ARG,
  REMOTE_WORKER_ENTRYPOINTS,
  startProcessTransport,
  startWorkerTransport,
  workerEntryPath,
} from "./transport.ts";
export type { HostTransport } from "./types.ts";
