import { z } from "zod";
import {
  MEMORY_MAX_CATEGORY_BYTES,
  MEMORY_MAX_CONTENT_BYTES,
  MEMORY_MAX_KEY_BYTES,
  MEMORY_MAX_RECALL_LIMIT,
} from "../../memory/limits.ts";
import {
  HTTP_MAX_REQUEST_BODY_BYTES,
  SHELL_MAX_ARGS,
  WEB_FETCH_DEFAULT_CHARS,
  WEB_FETCH_MAX_CHARS,
  WEB_SEARCH_MAX_QUERY_CHARS,
} from "../limits.ts";
import { DelegateArgs, MessageSendArgs, SessionsHistoryArgs, SessionsListArgs } from "./agent-tools-schemas.ts";
import { CronArgs } from "./cron-args.ts";

/**
 * The wire formats of the built-in tools: each tool's arguments (the one schema that validates a call, and, turned
 * into JSON Schema, what the model is shown) and http_request's response.
 */

export const MemoryStoreArgs = z.strictObject({
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

export const MemoryRecallArgs = z.strictObject({
  query: z.string().describe("words to search for; empty returns the most recent memories"),
  limit: z.number().int().min(1).max(MEMORY_MAX_RECALL_LIMIT).optional(),
});

export const MemoryForgetArgs = z.strictObject({ key: z.string().min(1).describe("key of the memory to delete") });

export const FileReadArgs = z.strictObject({ path: z.string().min(1).describe("path relative to the workspace") });

export const FileWriteArgs = z.strictObject({
  path: z.string().min(1).describe("path relative to the workspace; missing directories are created"),
  content: z.string(),
  append: z.boolean().optional().describe("append instead of replacing the file"),
});

export const FileEditArgs = z.strictObject({
  path: z.string().min(1).describe("path relative to the workspace; the file must exist"),
  old_text: z.string().min(1).describe("the exact text to replace; it must occur exactly once in the file"),
  new_text: z.string().describe("the text to put in its place (empty deletes it)"),
});

export const WebFetchArgs = z.strictObject({
  url: z.string().min(1).describe("absolute http(s) URL of a public page"),
  max_chars: z
    .number()
    .int()
    .min(1)
    .max(WEB_FETCH_MAX_CHARS)
    .optional()
    .describe(`characters of text returned (default ${WEB_FETCH_DEFAULT_CHARS}, at most ${WEB_FETCH_MAX_CHARS})`),
});

export const WebSearchArgs = z.strictObject({
  query: z.string().trim().min(1).max(WEB_SEARCH_MAX_QUERY_CHARS).describe(`what to search for (max ${WEB_SEARCH_MAX_QUERY_CHARS} characters)`),
  count: z.number().int().min(1).max(20).optional().describe("results wanted (default tools.web_search.max_results, which also caps it)"),
});

/** What web_search returns to the model, as JSON text. */
export const WebSearchResultsSchema = z.object({
  query: z.string(),
  results: z.array(z.object({ title: z.string(), url: z.string(), snippet: z.string() })),
});

export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;

export const HttpRequestArgs = z.strictObject({
  url: z.string().min(1).describe("absolute http(s) URL; must match tools.http_allowlist"),
  method: z.enum(HTTP_METHODS).optional().describe("default GET"),
  headers: z.record(z.string(), z.string()).optional(),
  body: z.string().optional().describe(`request body text (max ${HTTP_MAX_REQUEST_BODY_BYTES} bytes)`),
});

/** What http_request returns to the model, as JSON text. */
export const HttpResponseSchema = z.object({
  status: z.number().int(),
  url: z.string(),
  content_type: z.string().nullable(),
  body: z.string(),
  truncated: z.boolean(),
});

export const ShellArgs = z
  .strictObject({
    command: z
      .array(z.string())
      .min(1)
      .max(SHELL_MAX_ARGS)
      .optional()
      .describe('argv array, e.g. ["git", "status"]; no shell: quotes, ;, |, $ are literal'),
    program: z.string().min(1).optional().describe("program name (alternative to command)"),
    args: z.array(z.string()).max(SHELL_MAX_ARGS - 1).optional().describe("arguments for program"),
  })
  .refine((a) => (a.command === undefined) !== (a.program === undefined), {
    message: "give either command (an argv array) or program with optional args, not both",
  })
  .refine((a) => a.command === undefined || a.args === undefined, { message: "args goes with program, not command" });

/** What the model is told each built-in tool does, by tool name. */
export const BUILTIN_TOOL_DESCRIPTIONS = {
  memory_store: "Remember a fact for later conversations. Storing an existing key replaces it.",
  memory_recall: "Search remembered facts by keywords (private ones included); best matches first.",
  memory_forget: "Delete a remembered fact by its key.",
  http_request: "Make an HTTP request to an allowed URL and return status, content type and body text.",
  file_read: "Read a UTF-8 text file inside the workspace.",
  file_write: "Write (or append to) a text file inside the workspace.",
  file_edit:
    "Replace one exact piece of text in a file inside the workspace with new text; fails when the old text is missing or occurs more than once.",
  web_fetch:
    "Fetch a public web page (GET) and return its readable text: title, headings, paragraphs, links and tables as Markdown; text and JSON as they are.",
  web_search: "Search the web; returns titles, URLs and snippets of the best results.",
  shell:
    "Run one allowed program with arguments in the workspace directory (no shell interpretation). " +
    "Returns exit code, stdout and stderr.",
  message_send:
    "Send a message to one of the owner's configured targets (a chat on a channel such as Telegram, or another session), by target name. " +
    "Workspace files the text links in Markdown (![chart](out/chart.png), [report](report.pdf)) are sent to a chat after the text.",
  sessions_list: "List the owner's conversations (sessions): id, title, channel, last update, message count; newest first.",
  sessions_history: "Read the recent messages of another conversation (session) by its id.",
  delegate:
    "Run a sub-task as a helper with its own instructions, a subset of the tools and a budget; returns the helper's answer. " +
    "The helper sees only the task, not this conversation.",
  cron:
    "Schedule work for this conversation: a reminder delivered here at a time (payload systemEvent) or a question the assistant " +
    "answers then (payload agentTurn); once (schedule at), every N ms (every) or by cron expression (cron). Also list, remove, run now, and show runs.",
} as const satisfies Record<keyof typeof BUILTIN_TOOL_ARGS, string>;

/** Each built-in tool's argument schema, by tool name. */
export const BUILTIN_TOOL_ARGS = {
  memory_store: MemoryStoreArgs,
  memory_recall: MemoryRecallArgs,
  memory_forget: MemoryForgetArgs,
  http_request: HttpRequestArgs,
  file_read: FileReadArgs,
  file_write: FileWriteArgs,
  file_edit: FileEditArgs,
  web_fetch: WebFetchArgs,
  web_search: WebSearchArgs,
  shell: ShellArgs,
  message_send: MessageSendArgs,
  sessions_list: SessionsListArgs,
  sessions_history: SessionsHistoryArgs,
  delegate: DelegateArgs,
  cron: CronArgs,
} as const;

export type BuiltinToolName = keyof typeof BUILTIN_TOOL_ARGS;
export type MemoryStoreArgs = z.output<typeof MemoryStoreArgs>;
export type MemoryRecallArgs = z.output<typeof MemoryRecallArgs>;
export type MemoryForgetArgs = z.output<typeof MemoryForgetArgs>;
export type FileReadArgs = z.output<typeof FileReadArgs>;
export type FileWriteArgs = z.output<typeof FileWriteArgs>;
export type HttpRequestArgs = z.output<typeof HttpRequestArgs>;
export type FileEditArgs = z.output<typeof FileEditArgs>;
export type WebFetchArgs = z.output<typeof WebFetchArgs>;
export type WebSearchArgs = z.output<typeof WebSearchArgs>;
export type WebSearchResults = z.infer<typeof WebSearchResultsSchema>;
export type HttpToolResponse = z.infer<typeof HttpResponseSchema>;
export type ShellArgs = z.output<typeof ShellArgs>;
