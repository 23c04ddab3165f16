import { MEMORY_DEFAULT_CATEGORY } from "../../memory/limits.ts";
import type { MemoryBackend, MemoryEntry } from "../../memory/types.ts";
import { defineTool } from "../define.ts";
import { ok } from "../result.ts";
import type { Tool } from "../types.ts";
import { BUILTIN_TOOL_DESCRIPTIONS, MemoryForgetArgs, MemoryRecallArgs, MemoryStoreArgs } from "./schemas.ts";

/** Default number of memories memory_recall returns when the model gives no limit. */
export const MEMORY_RECALL_DEFAULT_LIMIT = 5;

function formatEntry(entry: MemoryEntry, index: number): string {
  const score = entry.score == null ? "" : `, score ${entry.score.toFixed(2)}`;
  const flag = entry.private ? ", private" : "";
  return `${index + 1}. ${entry.key} [${entry.category}${score}${flag}] ${entry.content}`;
}

/** memory_store, memory_recall, memory_forget on whatever backend `memory()` returns at call time. */
export function createMemoryTools(memory: () => MemoryBackend): Tool[] {
  return [
    defineTool({
      name: "memory_store",
      description: BUILTIN_TOOL_DESCRIPTIONS.memory_store,
      args: MemoryStoreArgs,
      async run(args, context) {
        const sessionId = args.scope === "session" ? context.sessionId : null;
        const category = args.category ?? MEMORY_DEFAULT_CATEGORY;
        await (context.memory ?? memory()).store(args.key, args.content, category, sessionId, { private: args.private === true });
        return ok(`stored ${args.private ? "private " : ""}memory "${args.key}"`);
      },
    }),
    defineTool({
      name: "memory_recall",
      description: BUILTIN_TOOL_DESCRIPTIONS.memory_recall,
      args: MemoryRecallArgs,
      async run(args, context) {
        const limit = args.limit ?? MEMORY_RECALL_DEFAULT_LIMIT;
        const entries = await (context.memory ?? memory()).recall(args.query, limit, context.sessionId, { includePrivate: true });
        if (entries.length === 0) return ok("no memories matched");
        return ok(entries.map(formatEntry).join("\n"));
      },
    }),
    defineTool({
      name: "memory_forget",
      description: BUILTIN_TOOL_DESCRIPTIONS.memory_forget,
      args: MemoryForgetArgs,
      async run(args, context) {
        const removed = await (context.memory ?? memory()).forget(args.key);
        return ok(removed ? `forgot memory "${args.key}"` : `no memory with key "${args.key}"`);
      },
    }),
  ];
}
