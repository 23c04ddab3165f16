import { z } from "zod";

/** A memory entry as backends return it. memory/types.ts re-exports its type: only a parse of one loads this module. */
export const MemoryEntrySchema = z.object({
  id: z.string(),
  key: z.string(),
  content: z.string(),
  category: z.string(),
  session_id: z.string().nullable().optional(),
  /** ISO-8601 time of the last store. */
  timestamp: z.string(),
  /** Relevance for recall results, 0..1 for the built-in backend (the share of the query it matches); higher is better. */
  score: z.number().nullable().optional(),
  /** Never auto-recalled into a prompt nor shown to plugins; only explicit searches and the memory commands see it. */
  private: z.boolean().optional(),
});
export type MemoryEntry = z.infer<typeof MemoryEntrySchema>;

