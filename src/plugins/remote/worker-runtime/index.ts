/**
 * The worker side of remote-mode plugins, importable by plugins as `prx/worker-runtime` or
 * `@elizaos/plugin-worker-runtime`.
 */
export { bootstrap, type BootstrapOptions } from "./bootstrap.ts";
export {
  createDefaultChannel,
  createStdioChannel,
  createWorkerChannel,
  isStdioMode,
  REMOTE_CHANNEL_ENV,
  ELIZA_REMOTE_CHANNEL_ENV,
  type WorkerChannel,
} from "./channel.ts";
export type {
  Action,
  ActionExample,
  ActionResult,
  Content,
  Evaluator,
  EventHandler,
  HandlerCallback,
  JsonValue,
  Memory,
  ModelHandler,
  Plugin,
  Provider,
  ProviderResult,
  Route,
  RouteHandler,
  RouteRequest,
  RouteResponse,
  RuntimeProxyApi,
  ServiceClass,
  ServiceInstance,
  State,
  Validator,
} from "./types.ts";
export type {
  Character,
  Entity,
  GetMemoriesParams,
  LogParams,
  Relationship,
  Room,
  RuntimeLogger,
  SearchMemoriesParams,
  ServiceLookup,
} from "./runtime-types.ts";
/** elizaOS names of the model types a plugin may serve or request. */
export const ModelType = {
  TEXT_SMALL: "TEXT_SMALL",
  TEXT_LARGE: "TEXT_LARGE",
  TEXT_EMBEDDING: "TEXT_EMBEDDING",
} as const;
