import { z } from "zod";
import { PrxError } from "../../core/errors.ts";
import { REMOTE_COMPOSE_STATE_MAX_MESSAGES } from "./limits.ts";
import { RuntimeMethods, type HostRpcMessage, type HostRpcResultMessage } from "./protocol.ts";
import type { RemoteSupervisor } from "./supervisor.ts";
import { WireErrorCodes, toWireError } from "./wire-error.ts";
import type { Memory, State } from "./worker-runtime/types.ts";

/** callbackId -> delivery to the turn that made the action call. */
export type CallbackRegistry = Map<string, (text: string) => void>;

const MemorySchema = z.looseObject({
  id: z.string().min(1).max(200).optional(),
  roomId: z.string().optional(),
  content: z.looseObject({ text: z.string().optional() }),
});
const ArgSchemas = {
  getService: z.object({ serviceType: z.string().min(1) }),
  useModel: z.object({ modelType: z.string().min(1), params: z.record(z.string(), z.unknown()).default({}) }),
  getMemory: z.object({ memoryId: z.string().min(1) }),
  createMemory: z.object({ memory: MemorySchema, tableName: z.string().max(64).nullable().default(null) }),
  updateMemory: z.object({ memory: MemorySchema.extend({ id: z.string().min(1).max(200) }) }),
  emitEvent: z.object({ name: z.string().min(1).max(200), payload: z.unknown() }),
  getSetting: z.object({ key: z.string().min(1) }),
  setSetting: z.object({ key: z.string().min(1), value: z.unknown() }),
  composeState: z.object({
    message: MemorySchema,
    options: z
      .object({ providers: z.array(z.string()).optional() })
      .nullable()
      .default(null),
  }),
  actionCallback: z.object({
    callbackId: z.string().min(1),
    response: z.unknown(),
    actionName: z.string().nullable().default(null),
  }),
} as const;

/** Serve one runtime.* call of a plugin against the host bindings. Never throws: errors become an error reply. */
export async function handleHostRpc(sup: RemoteSupervisor, msg: HostRpcMessage): Promise<HostRpcResultMessage> {
  const base = { type: "host-rpc-result" as const, requestId: msg.requestId };
  const method = msg.method as keyof typeof ArgSchemas;
  if (!(RuntimeMethods as readonly string[]).includes(method)) {
    return {
      ...base,
      ok: false,
      error: {
        name: "PrxError",
        code: WireErrorCodes.unknownMethod,
        message: `runtime.${msg.method} is not available to remote plugins`,
      },
    };
  }
  const parsed = ArgSchemas[method].safeParse(msg.args ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ...base,
      ok: false,
      error: {
        name: "PrxError",
        code: WireErrorCodes.badArgs,
        message: `runtime.${method}: ${issue?.path.join(".") || "args"}: ${issue?.message}`,
      },
    };
  }
  try {
    const payload = await serve(sup, method, parsed.data as never);
    return { ...base, ok: true, payload: payload ?? null };
  } catch (error) {
    sup.log.warn(`runtime.${method} failed`, { error: (error as Error).message });
    return { ...base, ok: false, error: toWireError(error) };
  }
}

type Args<M extends keyof typeof ArgSchemas> = z.infer<(typeof ArgSchemas)[M]>;

async function serve(sup: RemoteSupervisor, method: keyof typeof ArgSchemas, args: never): Promise<unknown> {
  const plugin = sup.options.name;
  const host = sup.options.host;
  switch (method) {
    case "getService": {
      const { serviceType } = args as Args<"getService">;
      const own = sup.descriptor().services?.find((s) => s.serviceType === serviceType);
      if (own) return { plugin, serviceType, rpcMethods: own.rpcMethods };
      return host.findService?.(serviceType) ?? null;
    }
    case "useModel": {
      const { modelType, params } = args as Args<"useModel">;
      return host.useModel(plugin, modelType, params);
    }
    case "getMemory":
      return host.getMemory(plugin, (args as Args<"getMemory">).memoryId);
    case "createMemory": {
      const { memory, tableName } = args as Args<"createMemory">;
      return host.createMemory(plugin, memory as Memory, tableName);
    }
    case "updateMemory":
      return host.updateMemory(plugin, (args as Args<"updateMemory">).memory as Memory & { id: string });
    case "emitEvent": {
      const { name, payload } = args as Args<"emitEvent">;
      host.emitEvent(plugin, name, payload);
      sup.noteEvent(`emitted ${name}`);
      return null;
    }
    case "getSetting": {
      const { key } = args as Args<"getSetting">;
      const stored = host.getSetting(plugin, key);
      if (stored !== undefined) return stored;
      return sup.options.settings[key] ?? null;
    }
    case "setSetting": {
      const { key, value } = args as Args<"setSetting">;
      host.setSetting(plugin, key, value ?? null);
      return null;
    }
    case "composeState":
      return composeState(sup, args as Args<"composeState">);
    case "actionCallback": {
      const { callbackId, response } = args as Args<"actionCallback">;
      if (!sup.deliverCallback(callbackId, response)) {
        throw new PrxError("NOT_FOUND", `actionCallback ${callbackId} does not belong to a running action call`, {
          hint: "use the callbackId of the action call in progress, or the handler's callback argument",
        });
      }
      return { delivered: true };
    }
  }
}

/** Provider calls of this plugin in progress: composeState skips providers then, so a provider cannot recurse. */
export const providerDepth = new WeakMap<RemoteSupervisor, number>();

async function composeState(sup: RemoteSupervisor, args: Args<"composeState">): Promise<State> {
  const sessionId = typeof args.message.roomId === "string" ? args.message.roomId : null;
  const history = sessionId ? await sup.options.host.recentMessages(sessionId, REMOTE_COMPOSE_STATE_MAX_MESSAGES) : [];
  const recentMessages = history.map((m) => `${m.role}: ${m.content}`).join("\n");
  const providers: Record<string, unknown> = {};
  const texts: string[] = [];
  const depth = providerDepth.get(sup) ?? 0;
  if (depth === 0) {
    providerDepth.set(sup, depth + 1);
    const wanted = args.options?.providers;
    for (const p of sup.descriptor().providers ?? []) {
      if (wanted && !wanted.includes(p.name)) continue;
      try {
        const result = await sup.call("provider", p.get.id, {
          message: args.message,
          state: { values: {}, data: {}, text: "" },
        });
        providers[p.name] = result;
        const text = typeof result === "string" ? result : (result as { text?: unknown } | null)?.text;
        if (typeof text === "string" && text) texts.push(text);
      } catch (error) {
        sup.log.warn(`provider ${p.name} failed during composeState`, { error: (error as Error).message });
      }
    }
    providerDepth.set(sup, (providerDepth.get(sup) ?? 1) - 1);
  }
  return {
    values: { recentMessages, sessionId },
    data: { recentMessages: history, providers },
    text: [recentMessages, ...texts].filter(Boolean).join("\n\n"),
  };
}
