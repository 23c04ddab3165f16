import type { StoredMessage } from "../storage/types.ts";

/** Messages shown when a chat is continued: the last exchanges, so the user sees where they left off. */
export const RECAP_MAX_MESSAGES = 4;
/** Characters of each recalled message shown (the rest is cut with "…"). */
export const RECAP_MAX_CHARS = 240;

/** Lines recalling the end of a session: its last user and assistant messages (tool traffic left out), oldest first. */
export function recapLines(messages: readonly StoredMessage[]): string[] {
  const said = messages.filter((message) => (message.role === "user" || message.role === "assistant") && message.content.trim() !== "");
  return said.slice(-RECAP_MAX_MESSAGES).map((message) => {
    const text = message.content.replace(/\s+/g, " ").trim();
    const shown = text.length > RECAP_MAX_CHARS ? `${text.slice(0, RECAP_MAX_CHARS)}…` : text;
    return `${message.role === "user" ? "you" : "prx"}> ${shown}`;
  });
}
