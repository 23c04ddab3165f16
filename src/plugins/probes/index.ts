/** Probes: run one capability of the live generation on demand (prx plugins probe, the API, wasm_plugins_manage). */
export {
  describe,
  parseProbeRequest,
  PROBE_MAX_MESSAGES,
  ProbeActions,
  type ProbeRequest,
  ProbeRequestSchema,
  type ProbeResponse,
  ProbeResponseSchema,
  STORAGE_OPS,
} from "./request.ts";
export { runProbe } from "./probe.ts";
export { middlewareTest } from "./middleware.ts";
