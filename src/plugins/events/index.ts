export { EventBus } from "./bus.ts";
export * from "./limits.ts";
export * from "./types.ts";
export {
  compilePattern,
  compilePatterns,
  HookEventPatternsSchema,
  isLegacyShortName,
  matchTopic,
  validatePattern,
  validateTopic,
} from "./patterns.ts";
export type { HookEventPatterns, TopicMatcher } from "./patterns.ts";
export {
  bridgeEventName,
  isLifecycleName,
  lifecycleTopic,
  LIFECYCLE_TOPIC_PREFIX,
  publishLifecycle,
} from "./lifecycle.ts";
export { startPump } from "./pump.ts";
export { subscribeGuest } from "./guest.ts";
export type { GuestSubscriber } from "./guest.ts";
export type { DeliverFn, Pump, PumpStats } from "./pump.ts";
export { lenientPublisher } from "./publisher.ts";
export type { LenientPublisher } from "./publisher.ts";
export { currentPublishDepth, runHandlingEvent } from "./depth.ts";
export { RateLimitedWarner } from "./warn.ts";
