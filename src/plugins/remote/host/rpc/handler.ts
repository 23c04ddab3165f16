import { PrxError } from "../../../../core/errors.ts";
import type { HostCallRefusal } from "../../../host-calls/index.ts";
import { DEFAULT_MAX_KV_STORAGE_MB } from "../../../types.ts";
import { composeState } from "./compose-state.ts";
import { HostRpcArgSchemas, type HostRpcArgs } from "./args.ts";
import { RuntimeMethods, type HostRpcMessage, type HostRpcResultMessage, type RuntimeMethod } from "../../protocol/index.ts";
import type { HostRpcPeer } from "./types.ts";
import { WireErrorCodes, toWireError } from "../../wire-error.ts";
import type { Memory } from "../../worker-runtime/types.ts";

/**
 * The answer to a runtime.* call refused over the plugin's host-call budget (nothing of it was parsed or served). The
 * plugin sees a PrxError RATE_LIMITED whose message names the limit and where to raise it.
 */
export function refusedHostRpc(msg: HostRpcMessage, refusal: HostCallRefusal): HostRpcResultMessage {
  return {
    type: "host-rpc-result",
    requestId: msg.requestId,
    ok: false,
    error: { name: "PrxError", code: "RATE_LIMITED", message: `runtime.${msg.method} refused: ${refusal.message}` },
  };
}

/** Serve one runtime.* call of a plugin against the host bindings. Never throws: errors become an error reply. */
export async function handleHostRpc(sup: HostRpcPeer, msg: HostRpcMessage): Promise<HostRpcResultMessage> {
  const base = { type: "host-rpc-result" as const, requestId: msg.requestId };
  if (!(RuntimeMethods as readonly string[]).includes(msg.method)) {
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
  const method = msg.method as RuntimeMethod;
  const parsed = HostRpcArgSchemas[method].safeParse(msg.args ?? {});
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

async function serve(sup: HostRpcPeer, method: RuntimeMethod, args: never): Promise<unknown> {
  const plugin = sup.name;
  const host = sup.host;
  const agent = sup.agent;
  switch (method) {
    case "getService": {
      const { serviceType } = args as HostRpcArgs<"getService">;
      const own = sup.descriptor().services?.find((s) => s.serviceType === serviceType);
      if (own) return { plugin, serviceType, rpcMethods: own.rpcMethods };
      return host.findService?.(serviceType) ?? null;
    }
    case "useModel": {
      const { modelType, params } = args as HostRpcArgs<"useModel">;
      return host.useModel(plugin, modelType, params);
    }
    case "getMemory":
      return host.getMemory(plugin, (args as HostRpcArgs<"getMemory">).memoryId);
    case "createMemory": {
      const { memory, tableName } = args as HostRpcArgs<"createMemory">;
      return host.createMemory(plugin, memory as Memory, tableName);
    }
    case "updateMemory":
      return host.updateMemory(plugin, (args as HostRpcArgs<"updateMemory">).memory as Memory & { id: string });
    case "emitEvent": {
      const { name, payload } = args as HostRpcArgs<"emitEvent">;
      host.emitEvent(plugin, name, payload);
      sup.noteEvent(`emitted ${name}`);
      return null;
    }
    case "getSetting": {
      const { key } = args as HostRpcArgs<"getSetting">;
      const stored = host.getSetting(plugin, key);
      if (stored !== undefined) return stored;
      return sup.settings[key] ?? null;
    }
    case "setSetting": {
      const { key, value } = args as HostRpcArgs<"setSetting">;
      host.setSetting(plugin, key, value ?? null);
      return null;
    }
    case "getSettings":
      return host.listSettings(plugin);
    case "composeState":
      return composeState(sup, args as HostRpcArgs<"composeState">);
    case "actionCallback": {
      const { callbackId, response } = args as HostRpcArgs<"actionCallback">;
      if (!sup.deliverCallback(callbackId, response)) {
        throw new PrxError("NOT_FOUND", `actionCallback ${callbackId} does not belong to a running action call`, {
          hint: "use the callbackId of the action call in progress, or the handler's callback argument",
        });
      }
      return { delivered: true };
    }
    case "getCache": {
      const value = await host.getCache(plugin, (args as HostRpcArgs<"getCache">).key);
      // wrapped, so that a stored null and "no entry" (undefined) stay apart in JSON
      return value === undefined ? null : { value };
    }
    case "setCache": {
      const { key, value } = args as HostRpcArgs<"setCache">;
      await host.setCache(plugin, key, value, sup.cacheQuotaBytes ?? DEFAULT_MAX_KV_STORAGE_MB * 1024 * 1024);
      return true;
    }
    case "deleteCache":
      return host.deleteCache(plugin, (args as HostRpcArgs<"deleteCache">).key);
    case "getMemories":
      return host.getMemories(plugin, args as HostRpcArgs<"getMemories">, agent);
    case "searchMemories":
      return host.searchMemories(plugin, args as HostRpcArgs<"searchMemories">);
    case "getRoom":
      return host.getRoom((args as HostRpcArgs<"getRoom">).roomId, agent);
    case "getRoomsByIds":
      return (await Promise.all((args as HostRpcArgs<"getRoomsByIds">).roomIds.map((id) => host.getRoom(id, agent)))).flatMap((room) => room ?? []);
    case "getEntityById":
      return host.getEntityById((args as HostRpcArgs<"getEntityById">).entityId, agent);
    case "getRelationships":
      return host.getRelationships(args as HostRpcArgs<"getRelationships">, agent);
  }
}
