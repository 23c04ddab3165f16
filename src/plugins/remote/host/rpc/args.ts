import { z } from "zod";
import { REMOTE_ROOMS_MAX_IDS } from "../../limits.ts";
import type { RuntimeMethod } from "../../protocol/index.ts";

/** The `args` of each host-rpc method (runtime.* of plugin code), parsed at the host's boundary. */
const MemorySchema = z.looseObject({
  id: z.string().min(1).max(200).optional(),
  roomId: z.string().optional(),
  content: z.looseObject({ text: z.string().optional() }),
});
const tableName = z.string().min(1).max(64);
const key = z.string().min(1);

export const HostRpcArgSchemas = {
  getService: z.object({ serviceType: z.string().min(1) }),
  useModel: z.object({ modelType: z.string().min(1), params: z.record(z.string(), z.unknown()).default({}) }),
  getMemory: z.object({ memoryId: z.string().min(1) }),
  createMemory: z.object({ memory: MemorySchema, tableName: tableName.nullable().default(null) }),
  updateMemory: z.object({ memory: MemorySchema.extend({ id: z.string().min(1).max(200) }) }),
  emitEvent: z.object({ name: z.string().min(1).max(200), payload: z.unknown() }),
  getSetting: z.object({ key }),
  setSetting: z.object({ key, value: z.unknown() }),
  composeState: z.object({
    message: MemorySchema,
    includeList: z.array(z.string()).nullable().default(null),
    onlyInclude: z.boolean().default(false),
    skipCache: z.boolean().default(false),
  }),
  actionCallback: z.object({
    callbackId: z.string().min(1),
    response: z.unknown(),
    actionName: z.string().nullable().default(null),
  }),
  getSettings: z.object({}),
  getCache: z.object({ key }),
  setCache: z.object({ key, value: z.unknown() }),
  deleteCache: z.object({ key }),
  getMemories: z.object({
    tableName,
    roomId: z.string().optional(),
    entityId: z.string().optional(),
    count: z.number().int().min(0).optional(),
    offset: z.number().int().min(0).optional(),
    start: z.number().optional(),
    end: z.number().optional(),
    unique: z.boolean().optional(),
  }),
  searchMemories: z.object({
    tableName,
    query: z.string().optional(),
    embedding: z.array(z.number()).optional(),
    roomId: z.string().optional(),
    entityId: z.string().optional(),
    count: z.number().int().min(0).optional(),
    match_threshold: z.number().optional(),
  }),
  getRoom: z.object({ roomId: z.string().min(1) }),
  getRoomsByIds: z.object({ roomIds: z.array(z.string().min(1)).max(REMOTE_ROOMS_MAX_IDS) }),
  getEntityById: z.object({ entityId: z.string().min(1) }),
  getRelationships: z.object({ entityId: z.string().min(1), tags: z.array(z.string()).optional() }),
} as const satisfies Record<RuntimeMethod, z.ZodType>;

export type HostRpcArgs<M extends RuntimeMethod> = z.infer<(typeof HostRpcArgSchemas)[M]>;
