import { z } from "zod";
import {
  MEMORY_DEFAULT_CATEGORY,
  MEMORY_MAX_CATEGORY_BYTES,
  MEMORY_MAX_CONTENT_BYTES,
  MEMORY_MAX_KEY_BYTES,
  MEMORY_MAX_RECALL_LIMIT,
} from "../../memory/limits.ts";
import type { MemoryBackend, MemoryEntry } from "../../memory/types.ts";
import { defineTool } from "../define.ts";
import { ok } from "../result.ts";
import type { Tool } from "../types.ts";

/** Default number of memories memory_recall returns when the model gives no limit. */
export const MEMORY_RECALL_DEFAULT_LIMIT = 5;

const StoreArgs = z.strictObject({
  key: z
    .string()
    .min(1)
    .describe(`short unique name of the fact, e.g. "user_timezone" (max ${MEMORY_MAX_KEY_BYTES} bytes)`),
  content: z.string().describe(`the fact to remember (max ${MEMORY_MAX_CONTENT_BYTES} bytes)`),
  category: z
    .string()
    .min(1)
    .optional()
    .describe(`grouping such as "preference" or "project" (max ${MEMORY_MAX_CATEGORY_BYTES} bytes)`),
  scope: z
    .enum(["global", "session"])
    .optional()
    .describe('"global" (default) is remembered in every conversation, "session" only in this one'),
  private: z
    .boolean()
    .optional()
    .describe("true for a sensitive fact (a PIN, a health detail): never added to prompts automatically, found only by memory_recall"),
});

const RecallArgs = z.strictObject({
  query: z.string().describe("words to search for; empty returns the most recent memories"),
  limit: z.number().int().min(1).max(MEMORY_MAX_RECALL_LIMIT).optional(),
});

const ForgetArgs = z.strictObject({ key: z.string().min(1).describe("key of the memory to delete") });

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
      description: "Remember a fact for later conversations. Storing an existing key replaces it.",
      args: StoreArgs,
      async run(args, context) {
        const sessionId = args.scope === "session" ? context.sessionId : null;
        const category = args.category ?? MEMORY_DEFAULT_CATEGORY;
        await memory().store(args.key, args.content, category, sessionId, { private: args.private === true });
        return ok(`stored ${args.private ? "private " : ""}memory "${args.key}"`);
      },
    }),
    defineTool({
      name: "memory_recall",
      description: "Search remembered facts by keywords (private ones included); best matches first.",
      args: RecallArgs,
      async run(args, context) {
        const limit = args.limit ?? MEMORY_RECALL_DEFAULT_LIMIT;
        const entries = await memory().recall(args.query, limit, context.sessionId, { includePrivate: true });
        if (entries.length === 0) return ok("no memories matched");
        return ok(entries.map(formatEntry).join("\n"));
      },
    }),
    defineTool({
      name: "memory_forget",
      description: "Delete a remembered fact by its key.",
      args: ForgetArgs,
      async run(args) {
        const removed = await memory().forget(args.key);
        return ok(removed ? `forgot memory "${args.key}"` : `no memory with key "${args.key}"`);
      },
    }),
  ];
}
