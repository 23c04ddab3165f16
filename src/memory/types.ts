import { z } from "zod";

export const MemoryEntrySchema = z.object({
  id: z.string(),
  key: z.string(),
  content: z.string(),
  category: z.string(),
  session_id: z.string().nullable().optional(),
  /** ISO-8601 time of the last store. */
  timestamp: z.string(),
  /** Relevance for recall results; higher is better. */
  score: z.number().nullable().optional(),
});
export type MemoryEntry = z.infer<typeof MemoryEntrySchema>;

export interface MemoryBackend {
  /** "sqlite", "none", "wasm:<name>". */
  readonly name: string;
  /** Insert or replace the entry with this key. */
  store(key: string, content: string, category: string, sessionId?: string | null): Promise<void>;
  /** Best matches first; a session id restricts to that session plus global entries. */
  recall(query: string, limit: number, sessionId?: string | null): Promise<MemoryEntry[]>;
  get(key: string): Promise<MemoryEntry | null>;
  forget(key: string): Promise<boolean>;
  count(): Promise<number>;
  health(): Promise<boolean>;
}
