import { z } from "zod";
import { SessionMessageWireSchema, SessionSummaryNoteWireSchema, SessionSummaryWireSchema } from "../agent/index.ts";
import { USER_MESSAGE_MAX_CHARS, SESSION_ID_PATTERN, SESSION_TITLE_MAX_CHARS } from "./limits.ts";
import { AGENT_ID_PATTERN } from "../config/schema.ts";

/** Wire formats of the gateway's own routes (the OpenAI-compatible ones: openai/schemas.ts). */

export const HealthSchema = z
  .object({
    status: z.enum(["ok", "unavailable"]),
    checks: z
      .record(z.string(), z.object({ ok: z.boolean(), detail: z.string().optional() }))
      .describe("database, providers, and plugins/channels when present"),
  })
  .describe("readiness");
export type Health = z.infer<typeof HealthSchema>;

export const PairResponseSchema = z
  .object({
    token: z.string().describe("bearer token; shown once, only its SHA-256 is stored"),
    id: z.string().describe("token id, for `prx gateway token revoke <id>`"),
  })
  .describe("a new bearer token");

export const StatusSchema = z
  .object({
    version: z.string(),
    uptime_s: z.number(),
    workspace: z.string(),
    provider: z.string(),
    model: z.string(),
    memory_backend: z.string(),
    counts: z.object({ sessions: z.number().int(), memories: z.number().int(), tools: z.number().int() }),
    gateway: z.object({ require_pairing: z.boolean(), in_flight_turns: z.number().int() }),
    telemetry: z
      .object({
        exported: z.number().int(),
        dropped_queue_full: z.number().int(),
        dropped_export_failed: z.number().int(),
        queued: z.number().int(),
      })
      .optional()
      .describe("spans sent to [telemetry] otlp_endpoint and lost, when it is set"),
  })
  .describe("gateway status");
export type Status = z.infer<typeof StatusSchema>;

export const SessionIdSchema = z.string().regex(SESSION_ID_PATTERN, "1-128 characters from A-Z a-z 0-9 . _ : @ -");

export const SessionListSchema = z.object({ sessions: z.array(SessionSummaryWireSchema) }).describe("sessions, newest first");

const ToolCallWire = z.object({ id: z.string(), name: z.string(), arguments: z.string() });

export const SessionMessagesSchema = z
  .object({
    session_id: z.string(),
    messages: z.array(SessionMessageWireSchema),
    summaries: z.array(SessionSummaryNoteWireSchema).describe("summaries written by compaction, oldest first; each stands after its through_seq"),
  })
  .describe("the session's history, oldest first");

export const SessionRenameBodySchema = z.strictObject({
  title: z.string().min(1).max(SESSION_TITLE_MAX_CHARS).describe(`the session's new title (1-${SESSION_TITLE_MAX_CHARS} characters)`),
});

export const SessionCancelSchema = z
  .object({ session_id: z.string(), cancelled: z.number().int().describe("turns of the session that were running or queued, now aborted") })
  .describe("the session's turns are cancelled");

/** Content parts as the OpenAI API takes them: text, image_url (data: or https: URL) and input_audio. */
export const ContentPartsSchema = z
  .array(z.looseObject({ type: z.string(), text: z.string().max(USER_MESSAGE_MAX_CHARS).optional() }))
  .min(1)
  .max(64);

export const MessageBodySchema = z.strictObject({
  message: z
    .union([z.string().min(1).max(USER_MESSAGE_MAX_CHARS), ContentPartsSchema])
    .describe('the user\'s message: text, or content parts ({"type": "text" | "image_url" | "input_audio", ...}) as in /v1/chat/completions'),
  model: z.string().min(1).optional().describe("a model this gateway serves (GET /v1/models); default: the configured one"),
  agent: z.string().regex(AGENT_ID_PATTERN).optional().describe("the agent that answers ([agents.<id>]); default main"),
});

export const WebhookBodySchema = z.strictObject({
  message: z.string().min(1).max(USER_MESSAGE_MAX_CHARS).describe("the user's message"),
  session_id: SessionIdSchema.optional().describe("continue this session; a new one is created when absent"),
});

export const TurnReplySchema = z
  .object({
    session_id: z.string(),
    reply: z.string().describe("the agent's final answer"),
    model: z.string(),
    provider: z.string(),
    usage: z.object({
      prompt_tokens: z.number().int(),
      completion_tokens: z.number().int(),
      total_tokens: z.number().int(),
    }),
    tool_calls: z.array(ToolCallWire.extend({ success: z.boolean(), output: z.string() })),
    messages: z.array(z.string()).describe("intermediate messages delivered during the turn"),
  })
  .describe("the reply of one agent turn");
export type TurnReply = z.infer<typeof TurnReplySchema>;

/** The SSE events of a streamed session message; each `data:` is one JSON object. */
export const SessionEventSchemas = {
delta: z.object({ text: z.string() }),
tool_call: ToolCallWire,
tool_result: z.object({ id: z.string(), name: z.string(), success: z.boolean(), output: z.string() }),
message: z.object({ text: z.string() }),
approval: z
  .object({ id: z.string(), code: z.string(), tool: z.string(), risk: z.string(), arguments_preview: z.string(), expires_at: z.string() })
  .describe("a tool call waits for the owner's approval: answer with POST /api/approvals/{id}"),
done: TurnReplySchema,
error: z.object({ code: z.string(), message: z.string(), hint: z.string().optional() }),
};
type EventSchemas = typeof SessionEventSchemas;
export type SessionEvents = { [K in keyof EventSchemas]: z.infer<EventSchemas[K]> };

export const SSE_DESCRIPTION =
  "text/event-stream of events `delta` {text}, `tool_call` {id,name,arguments}, `tool_result` {id,name,success,output}, " +
  "`message` {text}, `approval` {id,code,tool,risk,arguments_preview,expires_at} (a tool call waits for POST /api/approvals/{id}), " +
  "then `done` (the full reply) or `error` {code,message,hint?}";
