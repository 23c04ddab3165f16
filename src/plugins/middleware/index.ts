export { compareEntries, MIDDLEWARE_TIMEOUT_MS, MiddlewareChain } from "./chain.ts";
export { createStableMiddlewareRunner } from "./stable.ts";
export { MiddlewareFailureKinds } from "./types.ts";
export type {
  MiddlewareEntry,
  MiddlewareEntryStats,
  MiddlewareFailureKind,
  MiddlewareOutcome,
  MiddlewareStatusSink,
} from "./types.ts";
