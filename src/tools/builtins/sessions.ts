import type { StoredMessage } from "../../storage/types.ts";
import { defineTool } from "../define.ts";
import {
  SESSIONS_HISTORY_DEFAULT_LIMIT,
  SESSIONS_HISTORY_MAX_CHARS,
  SESSIONS_HISTORY_MAX_MESSAGE_CHARS,
  SESSIONS_LIST_DEFAULT_LIMIT,
} from "../limits.ts";
import { fail, ok } from "../result.ts";
import type { Tool, ToolContext } from "../types.ts";
import { sessionsUnavailable } from "./agent-tools-policy.ts";
import { SessionsHistoryArgs, SessionsListArgs } from "./agent-tools-schemas.ts";
import { BUILTIN_TOOL_DESCRIPTIONS } from "./schemas.ts";
import type { BuiltinToolsOptions } from "./types.ts";

/** What stands for the result of a memory tool in another session's history: it may hold private memories. */
export const WITHHELD_MEMORY_RESULT = "[memory tool result withheld]";

/** One message as sessions_history shows it. */
export interface HistoryMessage {
  seq: number;
  role: string;
  content: string;
  /** Names of the tools an assistant message called (never their arguments: a memory_store may carry a private fact). */
  tool_calls?: string[];
  /** The tool a tool message answers. */
  tool?: string;
  at: string;
}

/**
 * The last `limit` of another session's messages as the model reads them: tool calls by name only, memory tools'
 * results withheld, each message cut at SESSIONS_HISTORY_MAX_MESSAGE_CHARS and the oldest left out (counted in
 * `left_out`) until the whole fits SESSIONS_HISTORY_MAX_CHARS.
 */
export function historyView(
  messages: readonly StoredMessage[],
  includeTools: boolean,
  limit: number,
): { messages: HistoryMessage[]; left_out: number } {
  const shown: HistoryMessage[] = [];
  for (const message of messages) {
    if (message.role === "system") continue;
    if (message.role === "tool" && !includeTools) continue;
    let content = message.role === "tool" && message.name?.startsWith("memory_") ? WITHHELD_MEMORY_RESULT : message.content;
    if (content.length > SESSIONS_HISTORY_MAX_MESSAGE_CHARS) {
      content = `${content.slice(0, SESSIONS_HISTORY_MAX_MESSAGE_CHARS)} [... cut: ${content.length} characters in all]`;
    }
    const view: HistoryMessage = { seq: message.seq, role: message.role, content, at: message.createdAt };
    if (message.toolCalls?.length) view.tool_calls = message.toolCalls.map((call) => call.name);
    if (message.role === "tool" && message.name) view.tool = message.name;
    shown.push(view);
  }
  shown.splice(0, Math.max(0, shown.length - limit));
  let total = shown.reduce((sum, message) => sum + message.content.length, 0);
  let first = 0;
  while (total > SESSIONS_HISTORY_MAX_CHARS && first < shown.length) total -= shown[first++]!.content.length;
  return { messages: shown.slice(first), left_out: first };
}

/** The refusal of a sessions tool in the turn of a sender who is not the owner. */
export const NOT_OWNER_REFUSAL = "sessions are the owner's: only an owner of this chat's channel may read them";

const fromOwner = async (context: ToolContext): Promise<boolean> => (context.fromOwner ? await context.fromOwner() : true);

/** sessions_list and sessions_history: read access to the owner's sessions, for the owner only (never memories). */
export function createSessionTools(options: BuiltinToolsOptions): Tool[] {
  const unavailable = sessionsUnavailable(options);
  return [
    defineTool({
      unavailable,
      name: "sessions_list",
      description: BUILTIN_TOOL_DESCRIPTIONS.sessions_list,
      args: SessionsListArgs,
      async run(args, context) {
        if (!options.sessions) return fail(unavailable!);
        if (!(await fromOwner(context))) return fail(NOT_OWNER_REFUSAL);
        const store = options.sessions();
        const limit = args.limit ?? SESSIONS_LIST_DEFAULT_LIMIT;
        const found = args.query === undefined ? await store.list(limit) : await store.search(args.query, limit);
        const sessions = found.map((s) => ({
          id: s.id,
          title: s.title,
          channel: s.channel,
          updated_at: s.updatedAt,
          messages: s.messageCount,
          ...(s.id === context.sessionId ? { current: true } : {}),
        }));
        return ok(JSON.stringify({ sessions }));
      },
    }),
    defineTool({
      unavailable,
      name: "sessions_history",
      description: BUILTIN_TOOL_DESCRIPTIONS.sessions_history,
      args: SessionsHistoryArgs,
      async run(args, context) {
        if (!options.sessions) return fail(unavailable!);
        if (!(await fromOwner(context))) return fail(NOT_OWNER_REFUSAL);
        const store = options.sessions();
        const session = await store.get(args.session_id);
        if (!session) return fail(`no session "${args.session_id}"; sessions_list gives the ids`);
        const includeTools = args.include_tools === true;
        const limit = args.limit ?? SESSIONS_HISTORY_DEFAULT_LIMIT;
        // without tool messages, read enough to fill `limit` with the others (a tool round is one call and its results)
        const stored = await store.messages(args.session_id, includeTools ? limit : limit * 4);
        const { messages, left_out } = historyView(stored, includeTools, limit);
        return ok(JSON.stringify({ session_id: session.id, title: session.title, channel: session.channel, messages, ...(left_out > 0 ? { left_out } : {}) }));
      },
    }),
  ];
}
