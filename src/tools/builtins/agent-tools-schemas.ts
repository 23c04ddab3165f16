import { z } from "zod";
import { SESSION_ID_PATTERN, SESSION_SEARCH_MAX_CHARS } from "../../storage/limits.ts";
import {
  DELEGATE_DEFAULT_ITERATIONS,
  DELEGATE_DEFAULT_TIMEOUT_S,
  DELEGATE_DEFAULT_TOKENS,
  DELEGATE_MAX_ITERATIONS,
  DELEGATE_MAX_SYSTEM_PROMPT_CHARS,
  DELEGATE_MAX_TASK_CHARS,
  DELEGATE_MAX_TIMEOUT_S,
  DELEGATE_MAX_TOKENS,
  DELEGATE_MAX_TOOLS,
  MESSAGE_SEND_MAX_CHARS,
  SESSIONS_HISTORY_DEFAULT_LIMIT,
  SESSIONS_HISTORY_MAX_MESSAGES,
  SESSIONS_LIST_DEFAULT_LIMIT,
  SESSIONS_LIST_MAX_LIMIT,
} from "../limits.ts";

/** The arguments of message_send, sessions_list, sessions_history and delegate (see schemas.ts for the others). */

export const MessageSendArgs = z.strictObject({
  target: z.string().min(1).max(64).describe("name of a configured target (tools.message_send.targets)"),
  text: z.string().trim().min(1).max(MESSAGE_SEND_MAX_CHARS).describe(`the message (max ${MESSAGE_SEND_MAX_CHARS} characters)`),
});

export const SessionsListArgs = z.strictObject({
  limit: z
    .number()
    .int()
    .min(1)
    .max(SESSIONS_LIST_MAX_LIMIT)
    .optional()
    .describe(`sessions returned (default ${SESSIONS_LIST_DEFAULT_LIMIT}, at most ${SESSIONS_LIST_MAX_LIMIT})`),
  query: z
    .string()
    .trim()
    .min(1)
    .max(SESSION_SEARCH_MAX_CHARS)
    .optional()
    .describe("only sessions whose title or id contains this text"),
});

export const SessionsHistoryArgs = z.strictObject({
  session_id: z.string().regex(SESSION_ID_PATTERN, "a session id as sessions_list gives it").describe("id of the session to read"),
  limit: z
    .number()
    .int()
    .min(1)
    .max(SESSIONS_HISTORY_MAX_MESSAGES)
    .optional()
    .describe(`most recent messages returned (default ${SESSIONS_HISTORY_DEFAULT_LIMIT}, at most ${SESSIONS_HISTORY_MAX_MESSAGES})`),
  include_tools: z.boolean().optional().describe("include tool results (default false: only user and assistant messages)"),
});

export const DelegateArgs = z.strictObject({
  task: z.string().trim().min(1).max(DELEGATE_MAX_TASK_CHARS).describe("what the helper should do, with everything it needs to know"),
  system_prompt: z
    .string()
    .trim()
    .min(1)
    .max(DELEGATE_MAX_SYSTEM_PROMPT_CHARS)
    .optional()
    .describe("the helper's instructions (default: the assistant's own)"),
  tools: z
    .array(z.string().min(1))
    .max(DELEGATE_MAX_TOOLS)
    .optional()
    .describe("names of the tools the helper may use (default: the tools you have; [] for none)"),
  max_iterations: z
    .number()
    .int()
    .min(1)
    .max(DELEGATE_MAX_ITERATIONS)
    .optional()
    .describe(`tool rounds the helper may take (default ${DELEGATE_DEFAULT_ITERATIONS})`),
  max_tokens: z
    .number()
    .int()
    .min(1)
    .max(DELEGATE_MAX_TOKENS)
    .optional()
    .describe(`tokens the helper's model calls may use (default ${DELEGATE_DEFAULT_TOKENS})`),
  timeout_s: z
    .number()
    .int()
    .min(1)
    .max(DELEGATE_MAX_TIMEOUT_S)
    .optional()
    .describe(`seconds the helper may take (default ${DELEGATE_DEFAULT_TIMEOUT_S})`),
});

export type MessageSendArgs = z.output<typeof MessageSendArgs>;
export type SessionsListArgs = z.output<typeof SessionsListArgs>;
export type SessionsHistoryArgs = z.output<typeof SessionsHistoryArgs>;
export type DelegateArgs = z.output<typeof DelegateArgs>;
