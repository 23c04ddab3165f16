import { errorMessage } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Tool, ToolContext, ToolResult } from "../../tools/types.ts";
import type { AgentIdentity } from "./agent.ts";
import { REMOTE_TOOL_DESCRIPTION_MAX_CHARS } from "./limits.ts";
import { userEntityId } from "./host/bindings/index.ts";
import type { ActionDescriptor } from "./protocol/index.ts";
import type { ActionCalls } from "./types.ts";
import { composeState, type HostRpcPeer } from "./host/rpc/index.ts";

const DEFAULT_PARAMETERS = {
  type: "object",
  properties: { text: { type: "string", description: "what the action should act on, in plain words" } },
  additionalProperties: true,
};

/** Tool names providers accept: letters, digits, _ and -, at most 64. */
export function toolNameOf(action: string): string {
  return action.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64) || "action";
}

function exampleLines(examples: unknown): string[] {
  if (!Array.isArray(examples)) return [];
  const lines: string[] = [];
  for (const conversation of examples.slice(0, 2)) {
    if (!Array.isArray(conversation)) continue;
    const turns = conversation
      .map((t: { name?: unknown; content?: { text?: unknown } }) =>
        typeof t?.content?.text === "string" ? `${String(t.name ?? "user")}: ${t.content.text}` : null,
      )
      .filter((t): t is string => t !== null);
    if (turns.length) lines.push(`Example: ${turns.join(" / ")}`);
  }
  return lines;
}

export function describeAction(action: ActionDescriptor, plugin: string): string {
  const parts = [action.description || `Action ${action.name} of remote plugin ${plugin}.`];
  if (action.similes?.length) parts.push(`Also known as: ${action.similes.join(", ")}.`);
  parts.push(...exampleLines(action.examples));
  const text = parts.join("\n");
  return text.length > REMOTE_TOOL_DESCRIPTION_MAX_CHARS
    ? text.slice(0, REMOTE_TOOL_DESCRIPTION_MAX_CHARS - 3) + "..."
    : text;
}

/**
 * The elizaOS Memory a handler gets for the current message: the room is the session, the sender the session's user
 * entity (runtime.getEntityById finds it); a user id the caller named (the gateway's `user`) is in metadata.userId.
 */
export function actionMessage(text: string, sessionId: string, agent: AgentIdentity, userId?: string | null) {
  return {
    id: newId("msg"),
    entityId: userEntityId(sessionId),
    agentId: agent.id,
    roomId: sessionId,
    createdAt: Date.now(),
    content: { text, source: "prx" },
    ...(userId ? { metadata: { userId } } : {}),
  };
}

function resultOf(value: unknown, callbackTexts: string[]): ToolResult {
  if (value === false)
    return { success: false, output: callbackTexts.join("\n"), error: "the action reported failure" };
  if (typeof value === "string") return { success: true, output: value };
  if (value && typeof value === "object") {
    const r = value as { success?: unknown; text?: unknown; error?: unknown; data?: unknown; values?: unknown };
    const success = r.success !== false;
    const text =
      typeof r.text === "string" ? r.text : callbackTexts.join("\n") || JSON.stringify(r.data ?? r.values ?? {});
    return {
      success,
      output: text,
      error: success ? null : typeof r.error === "string" ? r.error : "the action reported failure",
    };
  }
  return { success: true, output: callbackTexts.join("\n") || "done" };
}

/**
 * One action as a prx tool, called as elizaOS calls it: `message` is the user's message that led to the call (its
 * text, the session as roomId, the sender as entityId), `state` is composeState's for that message, and the model's
 * arguments are `options`. Validate runs first with the same message and state; callbacks reach
 * `context.sendMessage` during the call. Without a user message (a tool called outside a turn) the arguments' `text`
 * stands in for it.
 */
export function actionTool(sup: ActionCalls & HostRpcPeer, action: ActionDescriptor): Tool {
  const plugin = sup.name;
  return {
    spec: {
      name: toolNameOf(action.name),
      description: describeAction(action, plugin),
      parameters: action.parameters ?? DEFAULT_PARAMETERS,
    },
    async execute(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
      const said = context.userMessage;
      const text = said ? said.text : typeof args.text === "string" ? args.text : JSON.stringify(args);
      const message = actionMessage(text, context.sessionId, sup.agent, said?.userId);
      try {
        const state = await composeState(sup, { message, includeList: null, onlyInclude: false, skipCache: false });
        if (action.validate) {
          const ok = await sup.call("action", action.validate.id, { message, state }, { signal: context.signal });
          if (ok !== true) {
            return {
              success: false,
              output: "",
              error: `action ${action.name} of plugin ${plugin} declined this request (validate returned false)`,
            };
          }
        }
        const callbackId = newId("cb");
        const texts: string[] = [];
        sup.callbacks.set(callbackId, (t) => {
          texts.push(t);
          context.sendMessage?.(t);
        });
        try {
          const value = await sup.call(
            "action",
            action.handler.id,
            { message, state, options: args, callbackId, responses: [] },
            { signal: context.signal },
          );
          return resultOf(value, texts);
        } finally {
          sup.callbacks.delete(callbackId);
        }
      } catch (error) {
        return { success: false, output: "", error: errorMessage(error) };
      }
    },
  };
}
