import { PrxError, errorMessage } from "../core/errors.ts";
import type { ChatMessage, ChatRequest, Provider, Usage } from "../providers/types.ts";
import type { ConversationSummary, StoredMessage } from "../storage/types.ts";
import { cutToolResult, messageTokens, windowBudget } from "./context-window.ts";
import type { TurnDeps } from "./types.ts";
import { tracedChat } from "./turn-trace.ts";

/** Messages after the newest summary a compaction reads at most (older ones fell out of every prompt already). */
export const COMPACTION_MAX_MESSAGES = 1_000;

/** Marks the summariser's instructions (a provider, or a test's fake, can tell the request apart). */
export const SUMMARY_INSTRUCTIONS = `You are compacting a long conversation so it can go on within the model's context window.
Write a summary of the conversation below that replaces it: keep every fact, name, number, preference, decision and
open task a later answer may need, and who said what when it matters. Fold the earlier summary, if there is one, in.
Write plain text, no preamble.`;

/** Marks the optional memory pass before a compaction. */
export const MEMORY_FLUSH_INSTRUCTIONS = `The older part of this conversation is about to be summarised. Store the durable
facts worth keeping beyond this conversation (preferences, names, decisions) with memory_store, one call each; answer
"none" if there are none.`;

/** How the summary stands in the prompt: appended to the system message. */
export function summaryContext(summary: ConversationSummary): string {
  return `Summary of the earlier conversation (messages 1-${summary.throughSeq}):\n${summary.content}`;
}

export interface Compaction {
  summary: ConversationSummary;
  /** Messages the summary newly folded in. */
  folded: number;
  usage: Usage | undefined;
}

export interface CompactionRequest {
  sessionId: string;
  provider: Provider;
  providerName: string;
  model: string;
  signal?: AbortSignal;
  /** Messages not yet in the prompt that the kept tail must leave room for (the turn's new user message). */
  reserve?: number;
  /** Fold every message after the newest summary, keeping no recent tail (a compaction asked for by hand). */
  all?: boolean;
  /** A failure of the optional memory pass (the compaction goes on). */
  onError?: (stage: string, message: string) => void;
}

/**
 * Summarise the older part of a session: every message after the newest summary except a recent tail of about
 * `compaction.keep_recent` of the window (starting at a user message), together with the summary before it. The new
 * summary is kept in storage; nothing is deleted. Null when there is nothing older than the tail to fold in.
 * Throws when the model does not answer (the session is then as it was).
 */
export async function compactSession(deps: Pick<TurnDeps, "config" | "sessions" | "tools" | "workspace"> & Partial<Pick<TurnDeps, "memory">>, request: CompactionRequest): Promise<Compaction | null> {
  const { config, sessions } = deps;
  const { sessionId } = request;
  const prior = await sessions.summary(sessionId);
  const after = prior?.throughSeq ?? 0;
  const rows = (await sessions.messages(sessionId, COMPACTION_MAX_MESSAGES)).filter((row) => row.seq > after);
  const budget = windowBudget(config, request.providerName, request.model);
  const cut = request.all ? rows.length : tailStart(rows, Math.floor(budget.window * config.compaction.keep_recent) - (request.reserve ?? 0));
  if (cut === 0) return null;
  const fold = rows.slice(0, cut);
  const cap = config.compaction.tool_result_max_tokens;
  const reply = Math.min(config.compaction.summary_max_tokens, budget.window - budget.limit);
  // the summariser's input within the window: the newest of the messages to fold, whole, as many as fit
  let room = budget.limit - messageTokens({ role: "system", content: SUMMARY_INSTRUCTIONS }) - (prior ? messageTokens({ role: "user", content: prior.content }) : 0) - reply;
  const lines: string[] = [];
  for (let i = fold.length - 1; i >= 0; i--) {
    const line = transcriptLine(fold[i]!, cap);
    const cost = messageTokens({ role: "user", content: line });
    if (cost > room) break;
    room -= cost;
    lines.push(line);
  }
  lines.reverse();
  const left = fold.length - lines.length;
  const head = prior ? `Earlier summary (messages 1-${prior.throughSeq}):\n${prior.content}\n\n` : "";
  const skipped = left > 0 ? `(${left} older messages did not fit and are not shown)\n` : "";
  const text = `${head}Conversation to fold in (messages ${fold[0]!.seq}-${fold.at(-1)!.seq}):\n${skipped}${lines.join("\n")}`;
  const messages: ChatMessage[] = [
    { role: "system", content: SUMMARY_INSTRUCTIONS },
    { role: "user", content: text },
  ];
  let usage: Usage | undefined;
  if (config.compaction.memory_flush) usage = await flushMemories(deps, request, text);
  const asked = { messages, model: request.model, temperature: 0, maxTokens: reply, signal: request.signal };
  const answer = await tracedChat(request.providerName, asked, () => request.provider.chat(asked));
  const content = answer.text.trim();
  if (!content) throw new PrxError("PROVIDER_PROTOCOL", "the model wrote an empty summary; the session was not compacted", { hint: "try /compact again, or another model" });
  const summary = { fromSeq: after + 1, throughSeq: fold.at(-1)!.seq, content, model: answer.model || request.model };
  await sessions.addSummary(sessionId, summary);
  return { summary: { ...summary, createdAt: new Date().toISOString() }, folded: fold.length, usage: sumUsage(usage, answer.usage) };
}

/**
 * Index of the first message of the recent tail kept word for word: the earliest user message from which the rest
 * takes at most `keep` estimated tokens; every message (the tail is empty) when no user message starts a tail that
 * small. 0: everything fits, nothing to fold.
 */
export function tailStart(rows: readonly StoredMessage[], keep: number): number {
  let total = 0;
  let start = rows.length;
  for (let i = rows.length - 1; i >= 0; i--) {
    const row = rows[i]!;
    total += messageTokens({ role: row.role, content: row.content, tool_calls: row.toolCalls, media: row.media });
    if (total > keep) return start;
    if (row.role === "user") start = i;
  }
  return 0;
}

function transcriptLine(row: StoredMessage, cap: number): string {
  const content = row.role === "tool" ? cutToolResult(row.content, cap) : row.content;
  const calls = row.toolCalls?.length ? ` [calls ${row.toolCalls.map((c) => `${c.name}(${c.arguments})`).join(", ")}]` : "";
  const media = row.media?.length ? ` [${row.media.length} attachment(s)]` : "";
  const who = row.role === "tool" ? `tool ${row.name ?? ""}`.trim() : row.role;
  return `${who}: ${content}${calls}${media}`;
}

/** One bounded call offered only memory_store; its calls are run, a failure of this pass is not the compaction's. */
async function flushMemories(deps: Pick<TurnDeps, "tools" | "workspace"> & Partial<Pick<TurnDeps, "memory">>, request: CompactionRequest, text: string): Promise<Usage | undefined> {
  const spec = deps.tools.specs().find((tool) => tool.name === "memory_store");
  if (!spec) return undefined;
  try {
    const asked: ChatRequest = {
      messages: [
        { role: "system", content: MEMORY_FLUSH_INSTRUCTIONS },
        { role: "user", content: text },
      ],
      model: request.model,
      temperature: 0,
      tools: [spec],
      signal: request.signal,
    };
    const answer = await tracedChat(request.providerName, asked, () => request.provider.chat(asked));
    const signal = request.signal ?? new AbortController().signal;
    // the agent's own memory when it has one (a compaction by hand runs as the host: the shared memory)
    const context = { sessionId: request.sessionId, workspace: deps.workspace, signal, ...(deps.memory ? { memory: deps.memory() } : {}) };
    for (const call of answer.toolCalls) if (call.name === "memory_store") await deps.tools.call(call.name, call.arguments, context);
    return answer.usage;
  } catch (error) {
    if (request.signal?.aborted) throw error;
    request.onError?.("compaction_memory", errorMessage(error));
    return undefined;
  }
}

function sumUsage(a: Usage | undefined, b: Usage | undefined): Usage | undefined {
  if (!a) return b;
  if (!b) return a;
  return {
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
  };
}
