import { timeText } from "../core/time-text.ts";
import { toolCallLine } from "../chat/render.ts";
import {
  deleteSessionData,
  SqliteSessionStore,
  toMessageWire,
  toSessionExport,
  toSummaryNoteWire,
  toSummaryWire,
  validateSessionId,
  type ConversationSummary,
  type SessionDeletion,
  type SessionSummary,
  type StoredMessage,
} from "../agent/index.ts";
import { PrxError } from "../core/errors.ts";
import { terminalJson, visible } from "../core/terminal.ts";
import { SESSION_MESSAGES_MAX, SESSIONS_LIST_MAX } from "../gateway/limits.ts";
import { NoneMemory } from "../memory/index.ts";
import { parseCommand, unknownName, usageError } from "./args.ts";
import { exportOutput, openMemory } from "./open-memory.ts";

export const SUBCOMMANDS = ["list", "show", "delete", "export", "compact"] as const;
/** Helper sessions (delegate) `show` names for one session. */
export const SESSION_HELPERS_SHOWN = 100;
const USAGE = `Usage: prx sessions <command> [--json]
  list [--limit N] [--agent ID]    conversations, most recent first (at most ${SESSIONS_LIST_MAX})
  show <id> [--limit N]            one conversation: its messages, oldest first, and the session that delegated
                                   it or the helpers it delegated to (--limit keeps the newest N messages,
                                   at most ${SESSION_MESSAGES_MAX})
  compact <id>                     summarise a conversation so far into its session summary, with the default
                                   model (later turns carry the summary; every message stays)
  delete <id>...                   erase conversations: every message, and the memories stored for that
                                   session only (scope "session")
  export [<id>...] [--output FILE] conversations with all their messages as JSON Lines, one per line (every
                                   conversation without ids; stdout by default, a file is 0600)
`;

function out(text: string): void {
  process.stdout.write(text.endsWith("\n") ? text : text + "\n");
}

function limitOf(raw: string | undefined, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  if (!/^[1-9]\d*$/.test(raw)) throw usageError(`prx sessions: --limit must be a positive whole number, got '${raw}'`);
  return Math.min(Number(raw), max);
}

function notFound(id: string): PrxError {
  return new PrxError("SESSION_NOT_FOUND", `no session "${id}"`, { hint: "list sessions with `prx sessions list`" });
}

function summaryLine(s: SessionSummary): string {
  const agent = s.agent === "main" ? "" : `  @${visible(s.agent)}`;
  return `${visible(s.id)}  ${timeText(s.updatedAt)}  ${String(s.messageCount).padStart(4)} messages  ${visible(s.channel)}${agent}  ${s.title ? visible(s.title) : "(untitled)"}`;
}

function summaryNote(s: ConversationSummary): string {
  return `-- summary of messages 1-${s.throughSeq} (by ${visible(s.model)}, ${timeText(s.createdAt)}) --\n${visible(s.content, { multiline: true })}\n--`;
}

/** Messages oldest first, each summary where it stands: after the last message it covers. */
function messageLines(messages: StoredMessage[], summaries: ConversationSummary[] = []): string {
  const notes = new Map(summaries.map((s) => [s.throughSeq, s]));
  const blocks: string[] = [];
  for (const m of messages) {
    const calls = m.toolCalls?.length ? m.toolCalls.map((c) => `\n  → ${visible(toolCallLine(c))}`).join("") : "";
    const name = m.name ? ` (${visible(m.name)})` : "";
    blocks.push(`#${m.seq} ${m.role}${name} ${timeText(m.createdAt)}${calls}\n${visible(m.content, { multiline: true })}`);
    const note = notes.get(m.seq);
    if (note) blocks.push(summaryNote(note));
  }
  return blocks.join("\n\n");
}

export async function sessionsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand("prx sessions", argv, {
    json: { type: "boolean" },
    limit: { type: "string" },
    output: { type: "string" },
    agent: { type: "string" },
  });
  const [sub, ...args] = positionals;
  if (values.help || sub === undefined) {
    (values.help ? process.stdout : process.stderr).write(USAGE);
    return values.help ? 0 : 2;
  }
  if (!(SUBCOMMANDS as readonly string[]).includes(sub)) throw unknownName("subcommand", sub, SUBCOMMANDS, "prx sessions");
  const opened = await openMemory(values.workspace);
  const sessions = opened.sessions;
  const json = values.json === true;
  try {
    switch (sub) {
      case "list": {
        if (args.length) throw usageError("prx sessions list takes no arguments");
        const list = await sessions.list(limitOf(values.limit, SESSIONS_LIST_MAX, SESSIONS_LIST_MAX), values.agent);
        if (json) out(terminalJson({ sessions: list.map(toSummaryWire) }));
        else out(list.length === 0 ? "no sessions" : list.map(summaryLine).join("\n"));
        return 0;
      }
      case "show": {
        if (args.length !== 1) throw usageError("prx sessions show takes exactly one session id");
        const id = validateSessionId(args[0]!);
        const summary = await sessions.get(id);
        if (!summary) throw notFound(id);
        const messages = await sessions.messages(id, limitOf(values.limit, SESSION_MESSAGES_MAX, SESSION_MESSAGES_MAX));
        const summaries = await sessions.summaries(id);
        const parent = await opened.sessionLinks.parentOf(id);
        const helpers = (await opened.sessionLinks.children(id, SESSION_HELPERS_SHOWN)).map((link) => link.childId);
        if (json) {
          const delegated = { parent: parent ? { session_id: parent.parentId, depth: parent.depth } : null, helpers };
          out(terminalJson({ session: toSummaryWire(summary), ...delegated, messages: messages.map(toMessageWire), summaries: summaries.map(toSummaryNoteWire) }));
        } else {
          const from = parent ? `\na helper of ${visible(parent.parentId)} (level ${parent.depth})` : "";
          const made = helpers.length > 0 ? `\nhelpers: ${helpers.map((h) => visible(h)).join(", ")}` : "";
          out(`${summaryLine(summary)}${from}${made}\n\n${messageLines(messages, summaries)}`);
        }
        return 0;
      }
      case "compact": {
        if (args.length !== 1) throw usageError("prx sessions compact takes exactly one session id");
        const id = validateSessionId(args[0]!);
        if (!(await sessions.get(id))) throw notFound(id);
        const { openHost } = await import("./open-host.ts");
        const host = await openHost(values.workspace, { oneShot: true });
        try {
          const done = await host.compactSession(id);
          if (json) out(JSON.stringify({ ...done, summary: done.summary ? toSummaryNoteWire(done.summary) : null }));
          else if (!done.compacted) out(`session ${visible(id)}: nothing new to compact`);
          else out(`session ${visible(id)}: ${done.folded} messages folded into the summary of messages 1-${done.summary!.throughSeq} (by ${visible(done.summary!.model)})`);
        } finally {
          await host.close();
        }
        return 0;
      }
      case "delete": {
        if (args.length === 0) throw usageError("prx sessions delete needs at least one session id");
        // Session-scoped memories can be found only in a store that lists its entries (not in a wasm: one).
        const memory = opened.memory.catalog ? opened.memory : new NoneMemory();
        const deleted: SessionDeletion[] = [];
        for (const id of args) {
          const done = await deleteSessionData(sessions, memory, id, opened.sessionLinks);
          deleted.push(done);
          if (!json) out(`deleted session ${visible(id)}: ${done.messages} messages, ${done.media ? `${done.media} images and audio clips, ` : ""}${done.memories} session memories`);
        }
        if (json) out(JSON.stringify({ deleted }));
        return 0;
      }
      case "export": {
        const ids = args.map(validateSessionId);
        for (const id of ids) if (!(await sessions.get(id))) throw notFound(id);
        const output = exportOutput(values.output);
        let n = 0;
        try {
          for (const id of ids.length > 0 ? ids : await sessions.ids()) {
            const summary = await sessions.get(id);
            if (!summary) continue; // deleted by another process meanwhile
            output.write(JSON.stringify(toSessionExport(summary, await sessions.allMessages(id))) + "\n");
            n++;
          }
        } finally {
          output.close();
        }
        if (values.output !== undefined) process.stderr.write(`exported ${n} sessions to ${values.output}\n`);
        return 0;
      }
    }
    return 2;
  } finally {
    await opened.close();
  }
}
