import { type HostContext, requirePermission } from "./context.ts";
import { HostError } from "./errors.ts";

/** prx:host/memory — the live memory backend, reached by RPC to the main thread. Permission "memory". */
export const MEMORY_PERMISSION = "memory";

export interface GuestMemoryEntry {
  id: string;
  text: string;
  category: string;
  importance: number;
}

export function memoryImports(ctx: HostContext) {
  return {
    store: async (text: string, category: string): Promise<string> => {
      requirePermission(ctx, MEMORY_PERMISSION);
      return String(await rpc(ctx, "memory.store", [text, category]));
    },
    recall: async (query: string, limit: number): Promise<GuestMemoryEntry[]> => {
      requirePermission(ctx, MEMORY_PERMISSION);
      return (await rpc(ctx, "memory.recall", [query, limit])) as GuestMemoryEntry[];
    },
  };
}

async function rpc(ctx: HostContext, method: "memory.store" | "memory.recall", args: unknown[]): Promise<unknown> {
  try {
    return await ctx.rpc(method, args);
  } catch (error) {
    throw new HostError((error as Error).message);
  }
}
