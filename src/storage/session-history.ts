import type { ChatMessage } from "../contracts/chat.ts";
import { PrxError } from "../core/errors.ts";
import { SESSION_ID_MAX_BYTES, SESSION_ID_PATTERN, SESSION_SEARCH_MAX_CHARS, SESSION_TITLE_CHARS, SESSION_TITLE_MAX_CHARS } from "./limits.ts";
import type { ConversationSummary, StoredMessage } from "./types.ts";

/** What a turn's history needs of a stored message. */
export type HistoryEntry = Pick<StoredMessage, "role" | "content" | "toolCalls" | "toolCallId" | "name" | "media">;

/** The columns of a stored message a turn's history reads (HISTORY_COLUMNS of the PostgreSQL store). */
export type HistoryRow = Pick<MessageRow, "role" | "content" | "tool_calls" | "tool_call_id" | "name" | "media">;

/** A history row as the entry historyFrom reads. */
export function toHistoryEntry(row: HistoryRow): HistoryEntry {
  const entry: HistoryEntry = { role: row.role, content: row.content };
  if (row.tool_calls) entry.toolCalls = JSON.parse(row.tool_calls);
  if (row.tool_call_id) entry.toolCallId = row.tool_call_id;
  if (row.name) entry.name = row.name;
  if (row.media) entry.media = JSON.parse(row.media);
  return entry;
}

export function validateSessionId(id: string): string {
  if (!SESSION_ID_PATTERN.test(id)) {
    throw new PrxError(
      "BAD_REQUEST",
      `invalid session id ${JSON.stringify(id.slice(0, 40))}: use 1-${SESSION_ID_MAX_BYTES} characters from A-Z a-z 0-9 . _ : @ -`,
      { status: 400 },
    );
  }
  return id;
}

/** The title a session gets from the first user message appended to it ("" when there is none). */
export function titleFrom(messages: ChatMessage[]): string {
  const firstUser = messages.find((m) => m.role === "user")?.content ?? "";
  // a long message (up to USER_MESSAGE_MAX_CHARS) is collapsed from its head only, unless its head is mostly space
  const text = firstUser.trimStart();
  const head = text.length > TITLE_HEAD_CHARS ? text.slice(0, TITLE_HEAD_CHARS) : text;
  const title = collapsed(head);
  return title.length < SESSION_TITLE_CHARS && head !== text ? collapsed(text) : title;
}

/** How much of a first message a title is made from, at first: the title's length many times over. */
const TITLE_HEAD_CHARS = SESSION_TITLE_CHARS * 8;

function collapsed(text: string): string {
  return text.replace(/\s+/g, " ").trim().slice(0, SESSION_TITLE_CHARS);
}

/**
 * History ready to send to a provider from the last stored messages: never starting with an orphaned tool
 * result, and without assistant tool calls whose results are missing (a crash mid-turn).
 */
export function historyFrom(rows: HistoryEntry[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    if (row.role === "tool") continue; // results are emitted together with their call below
    if (row.role === "assistant" && row.toolCalls?.length) {
      const results: ChatMessage[] = [];
      let j = i + 1;
      while (j < rows.length && rows[j]!.role === "tool") {
        const r = rows[j]!;
        results.push({ role: "tool", content: r.content, tool_call_id: r.toolCallId, name: r.name });
        j++;
      }
      const answered = new Set(results.map((r) => r.tool_call_id));
      if (row.toolCalls.every((c) => answered.has(c.id))) {
        out.push({ role: "assistant", content: row.content, tool_calls: row.toolCalls }, ...results);
      } else if (row.content) {
        out.push({ role: "assistant", content: row.content });
      }
      i = j - 1;
      continue;
    }
    out.push(row.media ? { role: row.role, content: row.content, media: row.media } : { role: row.role, content: row.content });
  }
  return out;
}

/** The JSON of a message's media as stored (refs without bytes), or null. */
export function mediaColumn(message: ChatMessage): string | null {
  if (!message.media?.length) return null;
  return JSON.stringify(message.media.map((ref) => (ref.data === undefined ? ref : { ...ref, data: undefined })));
}

/** Hashes of the stored media a batch of messages refers to. */
export function mediaHashes(messages: ChatMessage[]): string[] {
  const hashes = new Set<string>();
  for (const message of messages) for (const ref of message.media ?? []) if (ref.sha256) hashes.add(ref.sha256);
  return [...hashes];
}

/** Row shapes both backends read (snake_case columns). */
export interface SessionRow {
  id: string;
  title: string;
  channel: string;
  agent?: string;
  created_at: string;
  updated_at: string;
  message_count: number | string;
}

export interface MessageRow {
  seq: number | string;
  role: ChatMessage["role"];
  content: string;
  tool_calls: string | null;
  tool_call_id: string | null;
  name: string | null;
  /** JSON of the message's media refs (absent on rows read before the media migration). */
  media?: string | null;
  /** JSON of the model call's usage (assistant messages written since the usage migration). */
  usage?: string | null;
  created_at: string;
}

export function toSummary(row: SessionRow) {
  return {
    id: row.id,
    title: row.title,
    channel: row.channel,
    agent: row.agent ?? "main",
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    messageCount: Number(row.message_count),
  };
}

/** A stored row as a message (a turn's history reads toHistoryEntry's part only). */
export function toStored(row: MessageRow): StoredMessage {
  const message: StoredMessage = { seq: Number(row.seq), ...toHistoryEntry(row), createdAt: row.created_at };
  if (row.usage) message.usage = JSON.parse(row.usage);
  return message;
}

/** A search text within SESSION_SEARCH_MAX_CHARS, as a LIKE pattern (lower case; `\` escapes % _ and itself). */
export function searchPattern(text: string): string {
  if (text.length > SESSION_SEARCH_MAX_CHARS) {
    throw new PrxError("BAD_REQUEST", `a session search is at most ${SESSION_SEARCH_MAX_CHARS} characters, got ${text.length}`, { status: 400 });
  }
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** A title given by a rename: whitespace folded, 1-SESSION_TITLE_MAX_CHARS characters. */
export function renamedTitle(title: string): string {
  const trimmed = title.replace(/\s+/g, " ").trim();
  if (trimmed.length === 0 || trimmed.length > SESSION_TITLE_MAX_CHARS) {
    throw new PrxError("BAD_REQUEST", `a session title is 1-${SESSION_TITLE_MAX_CHARS} characters, got ${trimmed.length}`, {
      status: 400,
      hint: "send a shorter, non-empty title",
    });
  }
  return trimmed;
}

/** A stored summary row (both backends). */
export interface SummaryRow {
  from_seq: number | string;
  through_seq: number | string;
  content: string;
  model: string;
  created_at: string;
}

export function toConversationSummary(row: SummaryRow): ConversationSummary {
  const { content, model } = row;
  return { fromSeq: Number(row.from_seq), throughSeq: Number(row.through_seq), content, model, createdAt: row.created_at };
}
