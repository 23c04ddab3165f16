import { z } from "zod";
import { MediaRefSchema } from "../contracts/chat.ts";
import type { SessionSummary, StoredMessage } from "./types.ts";
import type { ConversationSummary } from "../storage/types.ts";

/**
 * The session export format: JSON Lines, one session per line with all its messages (`prx sessions export`,
 * GET /api/sessions/export). The same shapes as the sessions API, in snake_case.
 */

export const SessionSummaryWireSchema = z.object({
  id: z.string(),
  title: z.string(),
  channel: z.string(),
  agent: z.string().optional().describe("the agent the session talks to (absent in exports made before agents)"),
  created_at: z.string(),
  updated_at: z.string(),
  message_count: z.number().int(),
});

export const SessionMessageWireSchema = z.object({
  seq: z.number().int(),
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.string(),
  tool_calls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string() })).optional(),
  tool_call_id: z.string().optional(),
  name: z.string().optional(),
  media: z
    .array(MediaRefSchema.omit({ data: true }))
    .optional()
    .describe("images and audio of the message, by content hash (the bytes stay in the workspace's media store)"),
  usage: z
    .object({
      provider: z.string(),
      model: z.string(),
      input_tokens: z.number().int().nonnegative().describe("prompt tokens, cached ones included"),
      output_tokens: z.number().int().nonnegative(),
      cached_input_tokens: z.number().int().nonnegative(),
      cost_usd: z.number().nonnegative().nullable().describe("null: the model's prices are not known"),
    })
    .optional()
    .describe("assistant messages: tokens and cost of the model call that wrote it"),
  created_at: z.string(),
});

export const SessionSummaryNoteWireSchema = z
  .object({
    from_seq: z.number().int().describe("first message this summary newly folded in"),
    through_seq: z.number().int().describe("last message it covers; it stands for messages 1 to this one in the prompt"),
    content: z.string(),
    model: z.string().describe("the model that wrote it"),
    created_at: z.string(),
  })
  .describe("a session summary written by compaction (the messages it covers stay in the session)");

export const SessionCompactionWireSchema = z
  .object({
    session_id: z.string(),
    compacted: z.boolean().describe("false when there was nothing new to summarise"),
    folded: z.number().int().describe("messages newly folded into the summary"),
    summary: SessionSummaryNoteWireSchema.nullable().describe("the session's summary now"),
  })
  .describe("what a compaction did");

export const SessionExportSchema = SessionSummaryWireSchema
  .extend({ messages: z.array(SessionMessageWireSchema).describe("every message, oldest first") })
  .describe("one session with its messages: a line of the JSON Lines export");

export type SessionSummaryWire = z.infer<typeof SessionSummaryWireSchema>;
export type SessionMessageWire = z.infer<typeof SessionMessageWireSchema>;
export type SessionExport = z.infer<typeof SessionExportSchema>;
export type SessionSummaryNoteWire = z.infer<typeof SessionSummaryNoteWireSchema>;

export function toSummaryNoteWire(s: ConversationSummary): SessionSummaryNoteWire {
  return { from_seq: s.fromSeq, through_seq: s.throughSeq, content: s.content, model: s.model, created_at: s.createdAt };
}

export function toSummaryWire(s: SessionSummary): SessionSummaryWire {
  return {
    id: s.id,
    title: s.title,
    channel: s.channel,
    agent: s.agent,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
    message_count: s.messageCount,
  };
}

export function toMessageWire(m: StoredMessage): SessionMessageWire {
  return {
    seq: m.seq,
    role: m.role,
    content: m.content,
    ...(m.toolCalls ? { tool_calls: m.toolCalls } : {}),
    ...(m.toolCallId ? { tool_call_id: m.toolCallId } : {}),
    ...(m.name ? { name: m.name } : {}),
    ...(m.media ? { media: m.media } : {}),
    ...(m.usage ? { usage: m.usage } : {}),
    created_at: m.createdAt,
  };
}

export function toSessionExport(summary: SessionSummary, messages: StoredMessage[]): SessionExport {
  return { ...toSummaryWire(summary), messages: messages.map(toMessageWire) };
}
