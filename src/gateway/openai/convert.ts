import { PrxError } from "../../core/errors.ts";
import { audioFromBytes, checkImageCount, imageFromUrl } from "../../media/ingest.ts";
import type { ChatMessage, MediaRef, ToolSpec } from "../../providers/types.ts";
import { ImageUrlPartSchema, InputAudioPartSchema, type ClientTool, type OpenAIMessage } from "./schemas.ts";

function textOf(message: OpenAIMessage, index: number): string {
  const content = message.content;
  if (content === undefined || content === null) return "";
  if (typeof content === "string") return content;
  return content
    .map((part, j) => {
      if (part.type !== "text" || typeof part.text !== "string") {
        const what = message.role === "user" ? "text, image_url and input_audio" : "text";
        throw new PrxError(
          "BAD_REQUEST",
          `messages[${index}].content[${j}]: a ${message.role} message takes ${what} parts, got type "${part.type}"`,
        );
      }
      return part.text;
    })
    .join("");
}

/** A user message's content parts: its text, and its images and audio (decoded and checked here). */
export function userContentOf(message: OpenAIMessage, index: number): { text: string; media?: MediaRef[] } {
  const content = message.content;
  if (!Array.isArray(content) || content.every((part) => part.type === "text")) return { text: textOf(message, index) };
  const texts: string[] = [];
  const media: MediaRef[] = [];
  content.forEach((part, j) => {
    const where = `messages[${index}].content[${j}]`;
    if (part.type === "text" && typeof part.text === "string") texts.push(part.text);
    else if (part.type === "image_url") {
      const image = ImageUrlPartSchema.safeParse(part);
      if (!image.success) throw new PrxError("BAD_REQUEST", `${where}: an image_url part is {"image_url": {"url": ..., "detail"?: "auto" | "low" | "high"}}`);
      const { url, detail } = image.data.image_url;
      media.push(imageFromUrl(url, { where, ...(detail ? { detail } : {}) }));
    } else if (part.type === "input_audio") {
      const audio = InputAudioPartSchema.safeParse(part);
      if (!audio.success) throw new PrxError("BAD_REQUEST", `${where}: an input_audio part is {"input_audio": {"data": <base64>, "format": ...}}`);
      media.push(audioFromBytes(Buffer.from(audio.data.input_audio.data, "base64"), { where }));
    } else {
      throw new PrxError("BAD_REQUEST", `${where}: a user message takes text, image_url and input_audio parts, got type "${part.type}"`);
    }
  });
  checkImageCount(media.filter((ref) => ref.kind === "image").length, `messages[${index}]`);
  return { text: texts.join(""), media };
}

/** The client's conversation, in prx's terms. */
export interface TurnMessages {
  history: ChatMessage[];
  /** The new user message; "" when the conversation ends with tool results (`continuation`). */
  text: string;
  /** Images and audio of the new user message. */
  media?: MediaRef[];
  /** The last messages are results of tool calls the client ran: the turn continues from them. */
  continuation: boolean;
}

function toChatMessage(message: OpenAIMessage, index: number): ChatMessage {
  const content = textOf(message, index);
  switch (message.role) {
    case "system":
    case "developer":
      return { role: "system", content };
    case "assistant":
      return message.tool_calls?.length
        ? {
            role: "assistant",
            content,
            tool_calls: message.tool_calls.map((call) => ({
              id: call.id,
              name: call.function.name,
              arguments: call.function.arguments,
            })),
          }
        : { role: "assistant", content };
    case "tool":
      return {
        role: "tool",
        content,
        tool_call_id: message.tool_call_id!,
        ...(message.name ? { name: message.name } : {}),
      };
    default:
      return { role: "user", content };
  }
}

/** A message of the history: a user message keeps its images; its audio, heard in its own turn, is a note now. */
function toHistoryMessage(message: OpenAIMessage, index: number): ChatMessage {
  if (message.role !== "user" || !Array.isArray(message.content) || message.content.every((part) => part.type === "text")) {
    return toChatMessage(message, index);
  }
  const { text, media } = userContentOf(message, index);
  const images = media?.filter((ref) => ref.kind === "image") ?? [];
  const heard = media?.some((ref) => ref.kind === "audio") ? "[voice note of an earlier turn]" : "";
  const content = [text, heard].filter((part) => part !== "").join("\n");
  return images.length > 0 ? { role: "user", content, media: images } : { role: "user", content };
}

/**
 * What the OpenAI API itself refuses (the provider would answer 400, which would reach the client as a 502): a tool
 * message must answer a call of the assistant message right before its group, and every call must be answered
 * before the conversation goes on.
 */
function checkToolPairing(messages: OpenAIMessage[]): void {
  // Null until an assistant message calls tools: a plain conversation allocates nothing here (per-request path).
  let open: Set<string> | null = null;
  let opener = -1;
  const unanswered = () =>
    new PrxError(
      "BAD_REQUEST",
      `messages[${opener}]: the assistant's tool calls ${[...open!].join(", ")} have no tool message answering them`,
      { hint: 'send one {"role": "tool", "tool_call_id": <id>, "content": <result>} per call right after it' },
    );
  for (const [index, message] of messages.entries()) {
    if (message.role === "tool") {
      const id = message.tool_call_id;
      if (id === undefined) throw new PrxError("BAD_REQUEST", `messages[${index}]: a tool message needs tool_call_id`);
      if (!open?.delete(id)) {
        throw new PrxError(
          "BAD_REQUEST",
          `messages[${index}]: tool_call_id "${id}" does not answer a pending tool call of the assistant message before it`,
          { hint: "answer each call once, with the id the assistant message gave it" },
        );
      }
      continue;
    }
    if (open && open.size > 0) throw unanswered();
    if (message.role === "assistant" && message.tool_calls?.length) {
      open = new Set(message.tool_calls.map((call) => call.id));
      opener = index;
    }
  }
  if (open && open.size > 0) throw unanswered();
}

/**
 * The client's conversation as prx history plus the new user text. The agent's own system prompt stays in
 * charge; client system/developer messages are kept in the history as system messages. A conversation ending with
 * tool messages is the follow-up of an answer that called the client's tools: the turn continues from it.
 */
export function toTurnMessages(messages: OpenAIMessage[]): TurnMessages {
  const last = messages.at(-1)!;
  if (last.role !== "user" && last.role !== "tool") {
    throw new PrxError(
      "BAD_REQUEST",
      `the last message must have role "user" (a new message) or "tool" (results of the tool calls the answer asked ` +
        `for), got "${last.role}"`,
      { hint: "prx runs its own tools; send the conversation ending with the user's message or your tool results" },
    );
  }
  checkToolPairing(messages);
  if (last.role === "tool") {
    return { history: messages.map(toHistoryMessage), text: "", continuation: true };
  }
  const history = messages.slice(0, -1).map(toHistoryMessage);
  const { text, media } = userContentOf(last, messages.length - 1);
  if (text.trim() === "" && !media?.length)
    throw new PrxError("BAD_REQUEST", `messages[${messages.length - 1}]: the user message is empty`);
  return media?.length ? { history, text, media, continuation: false } : { history, text, continuation: false };
}

/**
 * The client's tools as tool specs. Names are unique within the request and never one of the server's tools the
 * model is offered (400 naming it: the model could not tell them apart).
 */
export function toClientTools(tools: readonly ClientTool[], serverTools: readonly ToolSpec[]): ToolSpec[] {
  const seen = new Set<string>();
  let server: Set<string> | undefined;
  return tools.map((tool, index) => {
    const { name, description, parameters, strict } = tool.function;
    if (seen.has(name)) throw new PrxError("BAD_REQUEST", `tools[${index}]: the tool name "${name}" is given twice`);
    seen.add(name);
    server ??= new Set(serverTools.map((spec) => spec.name));
    if (server.has(name)) {
      throw new PrxError("BAD_REQUEST", `tools[${index}]: "${name}" is the name of a tool this server runs itself`, {
        hint: `rename your tool; the server's tools are ${[...server].join(", ")}`,
        details: { param: `tools[${index}].function.name` },
      });
    }
    return {
      name,
      description: description ?? "",
      parameters: parameters ?? { type: "object", properties: {} },
      ...(typeof strict === "boolean" ? { strict } : {}),
    };
  });
}
