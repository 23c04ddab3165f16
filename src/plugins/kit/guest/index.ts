// @prx/kit: what a PRX plugin written in TypeScript imports. `prx plugins build` bundles it into the plugin.
export { config, events, kv, log } from "./host.ts";
export { decode, encode } from "./utf8.ts";
export {
  block,
  Block,
  defineCron,
  defineHook,
  defineMiddleware,
  defineProvider,
  defineStorage,
  defineTool,
  errorText,
  type ChatRequest,
  type CronDefinition,
  type HookDefinition,
  type MiddlewareDefinition,
  type ProviderDefinition,
  type StageHandler,
  type StorageDefinition,
  type StoredMemory,
  type ToolDefinition,
} from "./define.ts";
export type * from "./envelopes.ts";
export type * from "./wit.ts";
