import { z } from "zod";
import { SessionMessageWireSchema, SessionSummaryNoteWireSchema, SessionSummaryWireSchema, UsageTotalsWireSchema } from "../agent/index.ts";
import type { MemoryEntry } from "../memory/index.ts";
import { SessionIdSchema } from "./schemas.ts";

/** Wire formats of the memory and session-management routes (the export lines: memory/transfer.ts, agent/session-export.ts). */

export const MemoryEntryWireSchema = z.object({
  id: z.string(),
  key: z.string(),
  content: z.string(),
  category: z.string(),
  private: z.boolean().describe("never auto-recalled into a prompt"),
  session_id: z.string().nullable().describe("recalled only in this session; null for every session"),
  updated_at: z.string(),
  score: z.number().nullable().describe("search results: the share of the query matched (0..1); null in listings"),
});
export type MemoryEntryWire = z.infer<typeof MemoryEntryWireSchema>;

export function toMemoryWire(entry: MemoryEntry): MemoryEntryWire {
  return {
    id: entry.id,
    key: entry.key,
    content: entry.content,
    category: entry.category,
    private: entry.private === true,
    session_id: entry.session_id ?? null,
    updated_at: entry.timestamp,
    score: entry.score ?? null,
  };
}

export const MemoryListSchema = z
  .object({
    entries: z.array(MemoryEntryWireSchema),
    total: z.number().int().describe("entries matching the filter, over all pages"),
    limit: z.number().int(),
    offset: z.number().int(),
  })
  .describe("memory entries, most recently stored first");

export const MemorySearchSchema = z
  .object({ query: z.string(), entries: z.array(MemoryEntryWireSchema) })
  .describe("relevant entries, best first, private ones included");

export const MemoryEntryResponseSchema = z.object({ entry: MemoryEntryWireSchema }).describe("one entry");

export const MemoryStoredSchema = z
  .object({
    entry: MemoryEntryWireSchema
      .nullable()
      .describe('the stored entry as read back; null when the backend cannot read it back ("none", some wasm:)'),
  })
  .describe("the memory is stored");

export const MemoryStoreBodySchema = z.strictObject({
  key: z.string().min(1).describe("short unique name; storing an existing key replaces it"),
  content: z.string().describe("the fact to remember"),
  category: z.string().min(1).optional().describe('e.g. "preference"; default "core"'),
  private: z.boolean().optional().describe("never auto-recalled into a prompt; found only by explicit searches"),
  session_id: SessionIdSchema.optional().describe("recall it only in this session"),
});

export const MemoryForgetSchema = z.object({ key: z.string(), forgotten: z.literal(true) }).describe("the entry is gone, from the search index too");

export const MemoryImportResultSchema = z
  .object({
    entries: z.number().int().describe("entries in the import"),
    created: z.number().int(),
    replaced: z.number().int().describe("entries whose key existed and were replaced"),
  })
  .describe("what the import stored");

export const SessionDetailSchema = z
  .object({
    session: SessionSummaryWireSchema,
    messages: z.array(SessionMessageWireSchema),
    summaries: z.array(SessionSummaryNoteWireSchema).describe("summaries written by compaction, oldest first; each stands after its through_seq"),
    usage: UsageTotalsWireSchema.describe("everything the session's model calls used and cost"),
  })
  .describe("a session, its messages (oldest first), its summaries and its usage");

export const SessionDeletedSchema = z
  .object({
    session_id: z.string(),
    messages: z.number().int().describe("messages deleted"),
    media: z.number().int().describe("images and audio clips its messages referred to"),
    memories: z.number().int().describe('memories stored with scope "session" in it, deleted'),
  })
  .describe("the session is erased");
