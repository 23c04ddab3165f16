import { PrxError } from "../../core/errors.ts";
import { checkImageCount, imageFromBase64, imageFromUrl } from "../../media/ingest.ts";
import type { ChatMessage, MediaRef, ToolSpec } from "../../providers/types.ts";
import type { TurnMessages } from "../openai/convert.ts";
import type { ContentBlock, MessageParam, MessagesRequest, Tool } from "./schemas.ts";

type ImageBlock = Extract<ContentBlock, { type: "image" }>;
type ToolResultBlock = Extract<ContentBlock, { type: "tool_result" }>;

function imageOf(block: ImageBlock, where: string): MediaRef {
  const source = block.source;
  if (source.type === "url") return imageFromUrl(source.url, { where });
  return imageFromBase64(source.data, { where });
}

function resultPart(part: { type: string; text?: unknown }): string {
  if (part.type === "text" && typeof part.text === "string") return part.text;
  return part.type === "image" ? "[image returned by the tool, not shown]" : `[${part.type} block returned by the tool, not shown]`;
}

/** A tool result's text: its string, or its text blocks; an image in it becomes a note (tool messages carry text). */
function resultText(block: ToolResultBlock): string {
  const content = block.content;
  const text =
    content === undefined
      ? ""
      : typeof content === "string"
        ? content
        : content.map(resultPart).join("\n");
  return block.is_error ? `Error: ${text}` : text;
}

/** The system prompt the client sent, as one system message (none when it sent none). */
function systemMessage(system: MessagesRequest["system"]): ChatMessage[] {
  if (system === undefined) return [];
  const text = typeof system === "string" ? system : system.map((block) => block.text).join("\n");
  return text === "" ? [] : [{ role: "system", content: text }];
}

/**
 * One Anthropic message as prx chat messages. A user message's tool_result blocks become tool messages (before
 * the rest of it, as the API requires them first); its text and images one user message. An assistant message's
 * text and tool_use blocks become one assistant message; thinking blocks are left out.
 */
function toChatMessages(message: MessageParam, index: number, out: ChatMessage[]): void {
  const content = message.content;
  if (typeof content === "string") {
    out.push({ role: message.role, content });
    return;
  }
  if (message.role === "system") {
    const texts = content.map((block, j) => {
      if (block.type !== "text") throw new PrxError("BAD_REQUEST", `messages.${index}.content.${j}: a system message takes text blocks, got "${block.type}"`);
      return block.text;
    });
    out.push({ role: "system", content: texts.join("\n") });
    return;
  }
  if (message.role === "assistant") {
    const texts: string[] = [];
    const calls: NonNullable<ChatMessage["tool_calls"]> = [];
    content.forEach((block, j) => {
      if (block.type === "text") texts.push(block.text);
      else if (block.type === "tool_use") calls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input) });
      else if (block.type !== "thinking" && block.type !== "redacted_thinking")
        throw new PrxError("BAD_REQUEST", `messages.${index}.content.${j}: an assistant message takes text and tool_use blocks, got "${block.type}"`);
    });
    out.push(calls.length > 0 ? { role: "assistant", content: texts.join(""), tool_calls: calls } : { role: "assistant", content: texts.join("") });
    return;
  }
  const texts: string[] = [];
  const media: MediaRef[] = [];
  content.forEach((block, j) => {
    const where = `messages.${index}.content.${j}`;
    if (block.type === "tool_result") out.push({ role: "tool", content: resultText(block), tool_call_id: block.tool_use_id });
    else if (block.type === "text") texts.push(block.text);
    else if (block.type === "image") media.push(imageOf(block, where));
    else throw new PrxError("BAD_REQUEST", `${where}: a user message takes text, image and tool_result blocks, got "${block.type}"`);
  });
  if (media.length > 0) checkImageCount(media.length, `messages.${index}`);
  const text = texts.join("\n");
  if (text !== "" || media.length > 0) out.push(media.length > 0 ? { role: "user", content: text, media } : { role: "user", content: text });
}

/**
 * What Anthropic's API itself refuses: every tool_use of an assistant message is answered by a tool_result in the
 * user message right after it, and a tool_result answers a tool_use of the assistant message right before it.
 */
function checkToolPairing(messages: readonly MessageParam[]): void {
  let open: Set<string> | null = null;
  let opener = -1;
  for (const [index, message] of messages.entries()) {
    if (message.role === "system") continue;
    const blocks = typeof message.content === "string" ? [] : message.content;
    if (message.role === "user") {
      for (const block of blocks) {
        if (block.type !== "tool_result") continue;
        if (!open?.delete(block.tool_use_id)) {
          throw new PrxError(
            "BAD_REQUEST",
            `messages.${index}.content: unexpected tool_use_id found in tool_result blocks: ${block.tool_use_id}. Each ` +
              "tool_result block must have a corresponding tool_use block in the previous message.",
          );
        }
      }
    }
    if (open && open.size > 0) {
      throw new PrxError(
        "BAD_REQUEST",
        `messages.${opener}: tool_use ids were found without tool_result blocks immediately after: ${[...open].join(", ")}. ` +
          "Each tool_use block must have a corresponding tool_result block in the next message.",
      );
    }
    open = null;
    if (message.role === "assistant") {
      const ids = blocks.filter((block) => block.type === "tool_use").map((block) => block.id);
      if (ids.length > 0) {
        open = new Set(ids);
        opener = index;
      }
    }
  }
  if (open && open.size > 0) {
    throw new PrxError(
      "BAD_REQUEST",
      `messages.${opener}: tool_use ids were found without tool_result blocks immediately after: ${[...open].join(", ")}`,
      { hint: "send the tool_result blocks in a user message after it" },
    );
  }
}

/**
 * The client's conversation as prx history plus the new user message. The agent's own system prompt stays in
 * charge; the client's `system` is kept as the first history message. A last user message of only tool_result
 * blocks is the follow-up of an answer that called the client's tools: the turn continues from it.
 */
export function toTurnMessages(request: Pick<MessagesRequest, "messages" | "system">): TurnMessages {
  const { messages } = request;
  // System messages after the last user message are part of the conversation before it.
  let at = messages.length - 1;
  while (at > 0 && messages[at]!.role === "system") at--;
  const last = messages[at]!;
  if (last.role !== "user") {
    throw new PrxError("BAD_REQUEST", `the last message must have role "user", got "${last.role}"; prx does not continue a prefilled assistant message`, {
      hint: "end the conversation with the user's message or the tool_result blocks of the tool_use calls",
    });
  }
  checkToolPairing(messages);
  const history = systemMessage(request.system);
  for (let i = 0; i < at; i++) toChatMessages(messages[i]!, i, history);
  const trailing: ChatMessage[] = [];
  for (let i = at + 1; i < messages.length; i++) toChatMessages(messages[i]!, i, trailing);
  const tail: ChatMessage[] = [];
  toChatMessages(last, at, tail);
  const user = tail.at(-1);
  if (user?.role !== "user") {
    if (tail.length === 0) throw new PrxError("BAD_REQUEST", `messages.${at}: the user message is empty`);
    return { history: [...history, ...tail, ...trailing], text: "", continuation: true };
  }
  history.push(...tail.slice(0, -1), ...trailing);
  if (user.content.trim() === "" && !user.media?.length) throw new PrxError("BAD_REQUEST", `messages.${at}: the user message is empty`);
  return user.media ? { history, text: user.content, media: user.media, continuation: false } : { history, text: user.content, continuation: false };
}

/** The client's tools as tool specs; a name given twice, or one of the server's own tools, is a 400 naming it. */
export function toClientTools(tools: readonly Tool[], serverTools: readonly ToolSpec[]): ToolSpec[] {
  const seen = new Set<string>();
  let server: Set<string> | undefined;
  return tools.map((tool, index) => {
    if (seen.has(tool.name)) throw new PrxError("BAD_REQUEST", `tools.${index}: the tool name "${tool.name}" is given twice`);
    seen.add(tool.name);
    server ??= new Set(serverTools.map((spec) => spec.name));
    if (server.has(tool.name)) {
      throw new PrxError("BAD_REQUEST", `tools.${index}: "${tool.name}" is the name of a tool this server runs itself`, {
        hint: `rename your tool; the server's tools are ${[...server].join(", ")}`,
      });
    }
    return { name: tool.name, description: tool.description ?? "", parameters: tool.input_schema };
  });
}
