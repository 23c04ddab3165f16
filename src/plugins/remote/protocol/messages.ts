import { z } from "zod";
import { REMOTE_MAX_SURFACES_PER_KIND, REMOTE_PROTOCOL_VERSION } from "../limits.ts";

/**
 * The remote plugin wire protocol: one zod schema per message, shared by the host and the worker side.
 * Message type strings follow elizaOS's plugin-remote-manifest envelope. See PROTOCOL.md for the id scheme.
 */
export const SurfaceKinds = ["action", "provider", "service", "model", "event", "route", "evaluator"] as const;
export type SurfaceKind = (typeof SurfaceKinds)[number];

export const RuntimeMethods = [
  "getService",
  "useModel",
  "getMemory",
  "createMemory",
  "updateMemory",
  "emitEvent",
  "getSetting",
  "setSetting",
  "composeState",
  "actionCallback",
  "getSettings",
  "getCache",
  "setCache",
  "deleteCache",
  "getMemories",
  "searchMemories",
  "getRoom",
  "getRoomsByIds",
  "getEntityById",
  "getRelationships",
] as const;
export type RuntimeMethod = (typeof RuntimeMethods)[number];

export const LogLevelsWire = ["debug", "info", "warn", "error"] as const;

export const WireErrorSchema = z.object({
  name: z.string(),
  message: z.string(),
  code: z.string().optional(),
  stack: z.string().optional(),
  cause: z.unknown().optional(),
});
export type WireError = z.infer<typeof WireErrorSchema>;

export const RpcRefSchema = z.object({ rpc: z.literal(true), id: z.string().min(1) });
export type RpcRef = z.infer<typeof RpcRefSchema>;

const text = z.string().max(64 * 1024);
export const ActionDescriptorSchema = z.object({
  name: z.string().min(1).max(128),
  description: text.optional(),
  similes: z.array(z.string().max(128)).max(64).optional(),
  examples: z.unknown().optional(),
  /** JSON Schema of the tool arguments (prx extension; elizaOS actions have none). */
  parameters: z.record(z.string(), z.unknown()).optional(),
  handler: RpcRefSchema,
  validate: RpcRefSchema.optional(),
});
export const ProviderDescriptorSchema = z.object({
  name: z.string().min(1).max(128),
  description: text.optional(),
  dynamic: z.boolean().optional(),
  position: z.number().optional(),
  private: z.boolean().optional(),
  get: RpcRefSchema,
});
export const ServiceDescriptorSchema = z.object({
  serviceType: z.string().min(1).max(128),
  description: text.optional(),
  rpcMethods: z.array(z.string().min(1).max(128)).max(256),
  methods: z.record(z.string(), RpcRefSchema),
});
export const EvaluatorDescriptorSchema = z.object({
  name: z.string().min(1).max(128),
  description: text.optional(),
  similes: z.array(z.string().max(128)).max(64).optional(),
  alwaysRun: z.boolean().optional(),
  handler: RpcRefSchema,
  validate: RpcRefSchema.optional(),
});
export const HttpMethods = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export const RouteDescriptorSchema = z.object({
  type: z.enum(HttpMethods),
  path: z.string().min(1).max(512).startsWith("/"),
  name: z.string().max(128).optional(),
  public: z.boolean().optional(),
  /** multipart/form-data bodies are parsed into req.body (fields) and req.files (as multer gives them to elizaOS). */
  isMultipart: z.boolean().optional(),
  handler: RpcRefSchema,
});

const surfaces = <T extends z.ZodType>(item: T) => z.array(item).max(REMOTE_MAX_SURFACES_PER_KIND);
const surfaceMap = <T extends z.ZodType>(item: T) =>
  z.record(z.string(), item).refine((r) => Object.keys(r).length <= REMOTE_MAX_SURFACES_PER_KIND, {
    message: `at most ${REMOTE_MAX_SURFACES_PER_KIND} entries`,
  });
export const PluginDescriptorSchema = z.object({
  name: z.string().min(1).max(128),
  description: text.optional(),
  actions: surfaces(ActionDescriptorSchema).optional(),
  providers: surfaces(ProviderDescriptorSchema).optional(),
  services: surfaces(ServiceDescriptorSchema).optional(),
  models: surfaceMap(RpcRefSchema).optional(),
  events: surfaceMap(surfaces(RpcRefSchema)).optional(),
  evaluators: surfaces(EvaluatorDescriptorSchema).optional(),
  routes: surfaces(RouteDescriptorSchema).optional(),
});
export type PluginDescriptor = z.infer<typeof PluginDescriptorSchema>;
export type ActionDescriptor = z.infer<typeof ActionDescriptorSchema>;
export type ProviderDescriptor = z.infer<typeof ProviderDescriptorSchema>;
export type ServiceDescriptor = z.infer<typeof ServiceDescriptorSchema>;
export type EvaluatorDescriptor = z.infer<typeof EvaluatorDescriptorSchema>;
export type RouteDescriptor = z.infer<typeof RouteDescriptorSchema>;

const requestId = z.number().int().nonnegative();

// worker -> host
export const AnnounceMessageSchema = z.object({
  type: z.literal("worker-announce-plugin"),
  protocol: z.literal(REMOTE_PROTOCOL_VERSION),
  descriptor: PluginDescriptorSchema,
});
export const AnnounceDynamicMessageSchema = z.object({
  type: z.literal("worker-announce-dynamic"),
  descriptor: PluginDescriptorSchema,
});
export const InitCompleteMessageSchema = z.object({ type: z.literal("init-complete") });
export const InitFailedMessageSchema = z.object({ type: z.literal("init-failed"), error: WireErrorSchema });
export const WorkerRpcResultMessageSchema = z.object({
  type: z.literal("worker-rpc-result"),
  requestId,
  ok: z.boolean(),
  payload: z.unknown().optional(),
  error: WireErrorSchema.optional(),
});
export const ActionCallbackMessageSchema = z.object({
  type: z.literal("worker-action-callback"),
  callbackId: z.string().min(1),
  payload: z.unknown(),
});
export const HostRpcMessageSchema = z.object({
  type: z.literal("host-rpc"),
  requestId,
  api: z.literal("runtime"),
  method: z.string(),
  args: z.unknown(),
});
/** A service instance of the plugin started (at plugin start, or on first use for services with rpcMethods). */
export const ServiceStartedMessageSchema = z.object({
  type: z.literal("service-started"),
  serviceType: z.string().min(1).max(128),
});
/** A Worker's own measurement of its JS heap (ArrayBuffers and strings included), for `[resources] max_memory_mb`. */
export const MemoryMessageSchema = z.object({
  type: z.literal("memory"),
  heapBytes: z.number().nonnegative(),
});
export const LogMessageSchema = z.object({
  type: z.literal("log"),
  level: z.enum(LogLevelsWire),
  message: z.string(),
  fields: z.record(z.string(), z.unknown()).optional(),
});

// host -> worker
export const WorkerRpcMessageSchema = z.object({
  type: z.literal("worker-rpc"),
  requestId,
  surface: z.enum(SurfaceKinds),
  target: z.string().min(1),
  args: z.unknown(),
});
export const HostRpcResultMessageSchema = z.object({
  type: z.literal("host-rpc-result"),
  requestId,
  ok: z.boolean(),
  payload: z.unknown().optional(),
  error: WireErrorSchema.optional(),
});
export const CancelMessageSchema = z.object({ type: z.literal("cancel"), requestId, reason: z.string().optional() });
export const ShutdownMessageSchema = z.object({ type: z.literal("shutdown") });

export const WorkerToHostMessageSchema = z.discriminatedUnion("type", [
  AnnounceMessageSchema,
  AnnounceDynamicMessageSchema,
  InitCompleteMessageSchema,
  InitFailedMessageSchema,
  WorkerRpcResultMessageSchema,
  ActionCallbackMessageSchema,
  HostRpcMessageSchema,
  LogMessageSchema,
  ServiceStartedMessageSchema,
  MemoryMessageSchema,
]);
export const HostToWorkerMessageSchema = z.discriminatedUnion("type", [
  WorkerRpcMessageSchema,
  HostRpcResultMessageSchema,
  CancelMessageSchema,
  ShutdownMessageSchema,
]);
export type WorkerToHostMessage = z.infer<typeof WorkerToHostMessageSchema>;
export type HostToWorkerMessage = z.infer<typeof HostToWorkerMessageSchema>;
export type RemoteMessage = WorkerToHostMessage | HostToWorkerMessage;
export type WorkerRpcMessage = z.infer<typeof WorkerRpcMessageSchema>;
export type WorkerRpcResultMessage = z.infer<typeof WorkerRpcResultMessageSchema>;
export type HostRpcMessage = z.infer<typeof HostRpcMessageSchema>;
export type HostRpcResultMessage = z.infer<typeof HostRpcResultMessageSchema>;
