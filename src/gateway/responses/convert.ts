import { PrxError } from "../../core/errors.ts";
import type { ToolCall, Usage } from "../../providers/types.ts";
import type { ClientTool, OpenAIMessage } from "../openai/schemas.ts";
import type {
  ContentPart,
  FunctionTool,
  InputItem,
  OutputFunctionCall,
  OutputItem,
  OutputMessage,
  ResponseObject,
  StoredInputItem,
  TextFormat,
} from "./schemas.ts";

/**
 * The Responses API's items and prx's turn: items become the OpenAI chat messages the chat completions wire already
 * turns into a turn (one conversion, one set of checks), and a turn's result becomes output items.
 */

/** An item of a conversation as kept for previous_response_id: messages, function calls and their outputs. */
export type ContextItem =
  | { type: "message"; role: "user" | "system" | "developer" | "assistant"; content: string | ContentPart[] }
  | { type: "function_call"; call_id: string; name: string; arguments: string }
  | { type: "function_call_output"; call_id: string; output: string | ContentPart[] };

const hex = () => crypto.randomUUID().replaceAll("-", "");

/** A new response id, `resp_` and 32 hex digits; its output items are named after it. */
export function newResponseId(): string {
  return `resp_${hex()}`;
}

/** Output item ids carry their response's: an `item_reference` finds its response with one read. */
const ITEM_ID = /^(?:msg|fc)_([0-9a-f]{32})_(\d+)$/;

function outputItemId(responseId: string, kind: "msg" | "fc", index: number): string {
  return `${kind}_${responseId.slice("resp_".length)}_${index}`;
}

/** The response an output item id belongs to, or null for an id prx did not give. */
export function responseOfItem(itemId: string): string | null {
  const match = ITEM_ID.exec(itemId);
  return match ? `resp_${match[1]}` : null;
}

/** The request's input as items, each with an id (what GET /v1/responses/{id}/input_items lists). */
export function withIds(input: string | InputItem[]): StoredInputItem[] {
  const items: InputItem[] = typeof input === "string" ? [{ type: "message", role: "user", content: input }] : input;
  return items.map((item) => {
    if (item.id) return { ...item, type: item.type ?? "message", id: item.id } as StoredInputItem;
    const prefix = item.type === "function_call" ? "fc" : item.type === "function_call_output" ? "fco" : item.type === "reasoning" ? "rs" : "msg";
    return { ...item, type: item.type ?? "message", id: `${prefix}_${hex()}` } as StoredInputItem;
  });
}

/** Finds an earlier output item by id (item_reference): null when there is none for this caller. */
export type ItemLookup = (itemId: string) => Promise<ContextItem | null>;

/**
 * The request's items as conversation items: references resolved, reasoning items dropped (their encrypted content
 * is for the upstream model that wrote them; prx's turn does not carry it between requests).
 */
export async function toContextItems(items: StoredInputItem[], lookup: ItemLookup): Promise<ContextItem[]> {
  const out: ContextItem[] = [];
  for (const [index, raw] of items.entries()) {
    const item = raw as InputItem & { id: string };
    switch (item.type) {
      case "reasoning":
        continue;
      case "item_reference": {
        const found = await lookup(item.id);
        if (!found) {
          throw new PrxError("BAD_REQUEST", `Item with id '${item.id}' not found.`, {
            hint: "an item_reference names an output item of a response stored by this token (store: true)",
            details: { param: `input[${index}].id` },
          });
        }
        out.push(found);
        continue;
      }
      case "function_call":
        out.push({ type: "function_call", call_id: item.call_id, name: item.name, arguments: item.arguments });
        continue;
      case "function_call_output":
        out.push({ type: "function_call_output", call_id: item.call_id, output: item.output });
        continue;
      default:
        out.push({ type: "message", role: item.role, content: item.content });
    }
  }
  return out;
}

function partsText(parts: ContentPart[], where: string, accepted: string): string {
  return parts
    .map((part, j) => {
      if (part.type === "input_text" || part.type === "output_text") return part.text;
      if (part.type === "refusal") return part.refusal;
      throw new PrxError("BAD_REQUEST", `${where}[${j}]: ${accepted}, got type "${part.type}"`, {
        details: { param: `${where}[${j}].type` },
      });
    })
    .join("");
}

type ChatPart = Exclude<OpenAIMessage["content"], string | null | undefined>[number];

/** A user message's parts as chat completions parts: text and images. */
function userParts(parts: ContentPart[], where: string): ChatPart[] {
  return parts.map((part, j): ChatPart => {
    const here = `${where}[${j}]`;
    switch (part.type) {
      case "input_text":
        return { type: "text", text: part.text };
      case "input_image":
        if (!part.image_url) {
          throw new PrxError("BAD_REQUEST", `${here}: an input_image needs image_url (a data: or https: URL); file_id is not supported`, {
            details: { param: `${here}.image_url` },
          });
        }
        return { type: "image_url", image_url: { url: part.image_url, ...(part.detail ? { detail: part.detail } : {}) } };
      default:
        throw new PrxError("BAD_REQUEST", `${here}: a user message takes input_text and input_image parts, got type "${part.type}"`, {
          details: { param: `${here}.type` },
        });
    }
  });
}

/** What a text.format asks of the model, said as an instruction (the turn's provider gets no format field). */
export function formatInstruction(format: TextFormat | null | undefined): string | null {
  if (!format || format.type === "text") return null;
  if (format.type === "json_object") return "Answer with one JSON object and nothing else.";
  const what = format.description ? ` (${format.description})` : "";
  return `Answer with one JSON value${what} that validates against this JSON Schema named "${format.name}", and nothing else:\n${JSON.stringify(format.schema)}`;
}

/**
 * The conversation as chat completions messages: instructions first (a system message), consecutive function calls
 * joined on the assistant message before them, each function_call_output a tool message.
 */
export function toChatMessages(items: ContextItem[], system: string[]): OpenAIMessage[] {
  const messages: OpenAIMessage[] = system.map((content) => ({ role: "system", content }));
  items.forEach((item, index) => {
    const where = `input[${index}].content`;
    if (item.type === "function_call") {
      const call = { id: item.call_id, type: "function" as const, function: { name: item.name, arguments: item.arguments } };
      const last = messages.at(-1);
      if (last?.role === "assistant") last.tool_calls = [...(last.tool_calls ?? []), call];
      else messages.push({ role: "assistant", content: null, tool_calls: [call] });
      return;
    }
    if (item.type === "function_call_output") {
      const output = typeof item.output === "string" ? item.output : partsText(item.output, `input[${index}].output`, "a function_call_output takes input_text parts");
      messages.push({ role: "tool", tool_call_id: item.call_id, content: output });
      return;
    }
    if (typeof item.content === "string") {
      messages.push({ role: item.role, content: item.content });
      return;
    }
    if (item.role === "user") {
      messages.push({ role: "user", content: userParts(item.content, where) });
      return;
    }
    const accepted = item.role === "assistant" ? "an assistant message takes output_text and refusal parts" : `a ${item.role} message takes input_text parts`;
    messages.push({ role: item.role, content: partsText(item.content, where, accepted) });
  });
  return messages;
}

/** The client's function tools as chat completions tools (the same checks of names apply). */
export function toChatTools(tools: readonly FunctionTool[]): ClientTool[] {
  return tools.map((tool) => ({
    type: "function",
    function: {
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      ...(tool.parameters ? { parameters: tool.parameters } : {}),
      ...(typeof tool.strict === "boolean" ? { strict: tool.strict } : {}),
    },
  }));
}

/** The tools as a response echoes them. */
export function echoTools(tools: readonly FunctionTool[] | null | undefined): Record<string, unknown>[] {
  return (tools ?? []).map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description ?? null,
    parameters: tool.parameters ?? null,
    strict: tool.strict ?? null,
  }));
}

export function messageItem(responseId: string, index: number, text: string, status: OutputMessage["status"] = "completed"): OutputMessage {
  return {
    id: outputItemId(responseId, "msg", index),
    type: "message",
    status,
    role: "assistant",
    content: status === "in_progress" ? [] : [{ type: "output_text", text, annotations: [], logprobs: [] }],
  };
}

export function functionCallItem(responseId: string, index: number, call: ToolCall, status: OutputFunctionCall["status"] = "completed"): OutputFunctionCall {
  return {
    id: outputItemId(responseId, "fc", index),
    type: "function_call",
    status,
    call_id: call.id,
    name: call.name,
    arguments: status === "in_progress" ? "" : call.arguments,
  };
}

/** A turn's answer as output items: its text as a message (when there is text), then the client's tool calls. */
export function outputItems(responseId: string, text: string, calls: readonly ToolCall[] | undefined): OutputItem[] {
  const output: OutputItem[] = [];
  if (text !== "" || !calls?.length) output.push(messageItem(responseId, 0, text));
  for (const call of calls ?? []) output.push(functionCallItem(responseId, output.length, call));
  return output;
}

/** Output items as conversation items, for the next response of the chain. */
export function outputContext(output: readonly OutputItem[]): ContextItem[] {
  return output.map((item): ContextItem =>
    item.type === "message"
      ? { type: "message", role: "assistant", content: item.content.map((part) => part.text).join("") }
      : { type: "function_call", call_id: item.call_id, name: item.name, arguments: item.arguments },
  );
}

/** An output item of a stored response as a conversation item (item_reference), or null when it has none. */
export function findOutputItem(response: ResponseObject, itemId: string): ContextItem | null {
  const item = response.output.find((candidate) => candidate.id === itemId);
  return item ? outputContext([item])[0]! : null;
}

export function responseUsage(usage: Usage): NonNullable<ResponseObject["usage"]> {
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.total_tokens,
  };
}
