export { compareEntries, MIDDLEWARE_TIMEOUT_MS, MiddlewareChain } from "./chain.ts";
export { createPluginMiddlewareRunner, type MiddlewareGenerationSource } from "./runner.ts";
export {
  blockInError,
  boundBlockReason,
  EMPTY_BLOCK_REASON,
  MAX_BLOCK_REASON_BYTES,
  MiddlewareActionReplySchema,
  readReply,
  type MiddlewareActionReply,
} from "./reply.ts";
export { MiddlewareFailureKinds } from "./types.ts";
export type {
  MiddlewareEntry,
  MiddlewareFailureKind,
  MiddlewareOutcome,
  MiddlewareStatusSink,
} from "./types.ts";
