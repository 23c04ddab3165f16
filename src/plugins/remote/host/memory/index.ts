/** The memory bound of a remote plugin: its cap, and the guards that watch a subprocess's RSS or a Worker's heap. */
export { memoryCapOf, memoryKill } from "./cap.ts";
export { processMemoryGuard, workerMemoryGuard, type MemoryGuard } from "./guard.ts";
export { vmRssBytes } from "./process-rss.ts";
export { MemoryTicker } from "./ticker.ts";
