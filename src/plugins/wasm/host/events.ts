import { type HostContext, requirePermission } from "./context.ts";
import { HostError } from "./errors.ts";

/**
 * prx:host/events — publish onto the workspace event bus (fire and forget); subscribe only for hook
 * instances that export on-event: the main thread pumps matching events into that export. Permission "events".
 */
export const EVENTS_PERMISSION = "events";

export function eventsImports(ctx: HostContext) {
  return {
    publish: (topic: string, payload: string): void => {
      requirePermission(ctx, EVENTS_PERMISSION);
      if (topic.length === 0) throw new HostError("events.publish: topic must not be empty");
      ctx.publish(topic, payload);
    },
    subscribe: async (pattern: string): Promise<bigint> => {
      requirePermission(ctx, EVENTS_PERMISSION);
      if (!ctx.canSubscribe) {
        throw new HostError(
          `events.subscribe is unsupported for ${ctx.capability.type} capability ${ctx.capability.name}: ` +
            "only hook capabilities exporting on-event can subscribe",
        );
      }
      try {
        return BigInt((await ctx.rpc("events.subscribe", [pattern])) as number);
      } catch (error) {
        throw new HostError((error as Error).message);
      }
    },
    unsubscribe: async (id: bigint): Promise<void> => {
      requirePermission(ctx, EVENTS_PERMISSION);
      try {
        await ctx.rpc("events.unsubscribe", [Number(id)]);
      } catch (error) {
        throw new HostError((error as Error).message);
      }
    },
  };
}
