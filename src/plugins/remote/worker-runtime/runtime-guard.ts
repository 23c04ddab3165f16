import { PrxError } from "../../../core/errors.ts";
import type { RuntimeProxyApi } from "./runtime-types.ts";

interface Unsupported {
  reason: string;
  hint: string;
}

const SURFACES: Unsupported = {
  reason: "a remote plugin's surfaces are announced once, when it starts; function values cannot cross the worker boundary",
  hint: "declare it on the Plugin object (actions, providers, evaluators, services, models, events, routes); additions made during init() are announced too",
};
const DATABASE: Unsupported = {
  reason: "the workspace database belongs to the host",
  hint: "use the runtime methods that reach it: getMemories, createMemory, searchMemories, getCache/setCache, getSetting/setSetting",
};
const ROOMS: Unsupported = {
  reason: "rooms are prx sessions and entities their participants: remote plugins may read them, not change them, and prx has no worlds, components or participant states",
  hint: "read with getRoom, getRoomsByIds, getEntityById, getRelationships",
};
const MEMORIES: Unsupported = {
  reason: "remote plugins read and write their memories through a smaller set of methods, and none deletes or counts them",
  hint: "use getMemory/getMemoryById, createMemory, updateMemory, getMemories, searchMemories({ embedding } or { query })",
};
const TASKS: Unsupported = {
  reason: "prx has no task queue for remote plugins (getTasks finds none)",
  hint: "schedule work with a cron capability (see README, Plugins)",
};
const AGENTS: Unsupported = {
  reason: "prx hosts one agent per workspace and keeps no agent records or run logs for plugins",
  hint: "read the agent with runtime.agentId and runtime.character; write log lines with runtime.logger or runtime.log",
};
const LOOP: Unsupported = {
  reason: "the agent loop (message handling, actions, evaluators, models, events, services of other plugins) runs in the host",
  hint: "use useModel, emitEvent, composeState and getService; the host calls the plugin's surfaces itself",
};

const groups: Array<[Unsupported, string[]]> = [
  [
    SURFACES,
    [
      "registerPlugin", "registerService", "registerProvider", "registerAction", "registerEvaluator", "registerModel",
      "registerEvent", "registerTaskWorker", "registerSendHandler", "registerDatabaseAdapter",
    ],
  ],
  [
    DATABASE,
    [
      "getConnection", "init", "initialize", "close", "isReady", "runMigrations", "runPluginMigrations",
      "withEntityContext", "ensureEmbeddingDimension", "getCachedEmbeddings",
    ],
  ],
  [
    ROOMS,
    [
      "addParticipant", "addParticipantsRoom", "createEntity", "createEntities", "updateEntity", "createRoom", "createRooms",
      "deleteRoom", "deleteRoomsByWorldId", "updateRoom", "removeParticipant", "ensureConnection", "ensureConnections",
      "ensureParticipantInRoom", "ensureRoomExists", "ensureWorldExists", "createWorld", "getWorld", "getAllWorlds",
      "updateWorld", "removeWorld", "getRooms", "getRoomsByWorld", "getRoomsForParticipant", "getRoomsForParticipants",
      "getParticipantsForEntity", "getParticipantsForRoom", "isRoomParticipant", "getParticipantUserState",
      "setParticipantUserState", "getEntitiesByIds", "getEntitiesForRoom", "getComponent", "getComponents",
      "createComponent", "updateComponent", "deleteComponent", "createRelationship", "updateRelationship", "getRelationship",
    ],
  ],
  [
    MEMORIES,
    [
      "deleteMemory", "deleteManyMemories", "deleteAllMemories", "countMemories", "getMemoriesByIds",
      "getMemoriesByRoomIds", "getMemoriesByWorldId", "getAllMemories", "clearAllAgentMemories",
      "queueEmbeddingGeneration",
    ],
  ],
  [TASKS, ["createTask", "updateTask", "deleteTask", "getTaskWorker"]],
  [
    AGENTS,
    ["getAgent", "getAgents", "createAgent", "updateAgent", "deleteAgent", "getLogs", "deleteLog", "getAgentRunSummaries"],
  ],
  [
    LOOP,
    [
      "processActions", "evaluate", "getActionResults", "createRunId", "startRun", "endRun", "getCurrentRunId",
      "generateText", "getEvent", "getServicesByType", "getAllServices", "getServiceLoadPromise",
      "getRegisteredServiceTypes", "hasService", "hasElizaOS", "sendMessageToTarget", "stop",
    ],
  ],
];

/** IAgentRuntime / IDatabaseAdapter methods of elizaOS 1.x that remote plugins cannot use, with why. */
const methods = new Map<string, Unsupported>(groups.flatMap(([why, names]) => names.map((name) => [name, why] as const)));
methods.set("registerEvent", {
  reason: SURFACES.reason,
  hint: "declare the handler statically on Plugin.events, e.g. events: { MY_EVENT: [handler] }",
});
export const UNSUPPORTED_RUNTIME_METHODS: ReadonlyMap<string, Unsupported> = methods;

/** IAgentRuntime data members that only exist inside an elizaOS process (live maps of the whole agent). */
export const UNSUPPORTED_RUNTIME_PROPERTIES: ReadonlyMap<string, Unsupported> = new Map([
  ["services", LOOP],
  ["plugins", LOOP],
  ["routes", LOOP],
  ["events", LOOP],
  ["stateCache", LOOP],
  ["messageService", LOOP],
  ["initPromise", LOOP],
  ["db", DATABASE],
  ["adapter", DATABASE],
  ["databaseAdapter", DATABASE],
]);

export function unsupportedError(name: string, why: Unsupported): PrxError {
  return new PrxError("PLUGIN_UNSUPPORTED", `runtime.${name} is not supported in remote mode: ${why.reason}`, {
    hint: why.hint,
  });
}

/**
 * Wrap the runtime handed to plugin code: elizaOS members prx does not honour fail with a PrxError PLUGIN_UNSUPPORTED
 * naming them (a method when called, so feature checks with typeof still work; a data member when read), never with
 * "x is not a function". Names elizaOS does not have read as undefined, as on any object; nothing can be assigned.
 */
export function guardRuntime(api: RuntimeProxyApi): RuntimeProxyApi {
  const stubs = new Map<string, () => never>();
  return new Proxy(api, {
    get(target, prop, receiver) {
      if (typeof prop !== "string" || prop in target) return Reflect.get(target, prop, receiver);
      const method = UNSUPPORTED_RUNTIME_METHODS.get(prop);
      if (method) {
        let stub = stubs.get(prop);
        if (!stub) {
          stub = () => {
            throw unsupportedError(prop, method);
          };
          stubs.set(prop, stub);
        }
        return stub;
      }
      const property = UNSUPPORTED_RUNTIME_PROPERTIES.get(prop);
      if (property) throw unsupportedError(prop, property);
      return undefined;
    },
    set(_target, prop) {
      throw new PrxError("PLUGIN_UNSUPPORTED", `runtime.${String(prop)} cannot be assigned in remote mode`, {
        hint: "the runtime of a remote plugin is a fixed view of the host; keep plugin state in the plugin's own objects",
      });
    },
  });
}
