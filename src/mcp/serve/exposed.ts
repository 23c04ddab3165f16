import { z } from "zod";
import type { AgentHost } from "../../agent/host.ts";
import { validateSessionId } from "../../agent/sessions.ts";
import { MCP_SERVE_PLUGIN_TOOLS } from "../../config/mcp.ts";
import { lifecycleTopic } from "../../contracts/lifecycle.ts";
import { PrxError } from "../../core/errors.ts";
import type { ToolSpec } from "../../providers/types.ts";
import { describeIssues } from "../../tools/define.ts";
import { fail, ok } from "../../tools/result.ts";
import type { ToolResult } from "../../tools/types.ts";
import { PRX_CHAT_MAX_CHARS } from "../limits.ts";

/** The tool that runs one agent turn for an MCP client. */
export const PRX_CHAT_TOOL = "prx_chat";
/** Session of tool calls made through `prx mcp serve` (memory_store records it with what it stores). */
export const MCP_SERVE_SESSION = "mcp";
/** Channel of turns and tool calls made through `prx mcp serve`, as middleware and lifecycle events see it. */
export const MCP_SERVE_CHANNEL = "mcp";

const ChatArgsSchema = z.strictObject({
  message: z.string().min(1).max(PRX_CHAT_MAX_CHARS).describe("what to say to the agent"),
  session: z
    .string()
    .optional()
    .describe(`the conversation to continue or start (default "${MCP_SERVE_SESSION}"); its history is kept by prx`),
});

const chatSpec: ToolSpec = {
  name: PRX_CHAT_TOOL,
  description:
    "Talk to the prx agent: one turn in a named session, with its memory, tools and plugins. Returns the agent's reply.",
  parameters: (({ $schema: _, ...rest }) => rest)(z.toJSONSchema(ChatArgsSchema, { io: "input" }) as Record<string, unknown>),
};

export type ServeHost = Pick<AgentHost, "tools" | "runTurn" | "plugins" | "workspace" | "events">;

/** The tools an MCP client of prx sees, and how its calls run. */
export interface ServedTools {
  specs(): ToolSpec[];
  call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult>;
}

/**
 * `[mcp.serve] tools` over an agent host: named tools the host's registry offers (so a disabled built-in stays
 * hidden), `prx_chat`, and `@plugins` for whatever the plugin runtime serves right now. Calls go through the host's
 * tool registry (argument checks, output cap, counters) and are published as lifecycle events on channel "mcp".
 */
export function servedTools(host: ServeHost, entries: readonly string[]): ServedTools {
  // resolve() answers as a call would (a disabled built-in, a plugin tool hidden by a clash: nothing) without listing
  // every source, which would start MCP servers whose tools prx has not read yet
  const offered = (name: string) => host.tools.resolve(name)?.spec;
  const specs = (): ToolSpec[] => {
    const out = new Map<string, ToolSpec>();
    for (const entry of entries) {
      const names = entry === MCP_SERVE_PLUGIN_TOOLS ? (host.plugins?.runtime.tools.list() ?? []).map((t) => t.name) : [entry];
      for (const name of names) {
        const spec = name === PRX_CHAT_TOOL ? chatSpec : offered(name);
        if (spec) out.set(name, spec);
      }
    }
    return [...out.values()];
  };
  return {
    specs,
    async call(name, args, signal) {
      if (!specs().some((spec) => spec.name === name)) {
        throw new PrxError("TOOL_UNKNOWN", `prx does not serve a tool named "${name}"`, {
          status: 404,
          hint: "tools/list shows what is served; [mcp.serve] tools in config.toml chooses it",
        });
      }
      if (name === PRX_CHAT_TOOL) return chat(host, args, signal);
      const emit = (event: "tool_call_start" | "tool_call", payload: Record<string, unknown>) => {
        const topic = lifecycleTopic(event);
        if (host.events.wants?.(topic) !== false) {
          host.events.publish(topic, { session_id: MCP_SERVE_SESSION, channel: MCP_SERVE_CHANNEL, tool: name, ...payload });
        }
      };
      emit("tool_call_start", {});
      const result = await host.tools.call(name, JSON.stringify(args), {
        sessionId: MCP_SERVE_SESSION,
        workspace: host.workspace.root,
        signal,
      });
      emit("tool_call", { success: result.success });
      return result;
    },
  };
}

async function chat(host: ServeHost, raw: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
  const parsed = ChatArgsSchema.safeParse(raw);
  if (!parsed.success) return fail(`invalid arguments for ${PRX_CHAT_TOOL}: ${describeIssues(parsed.error)}`);
  const sessionId = validateSessionId(parsed.data.session ?? MCP_SERVE_SESSION);
  const result = await host.runTurn({ sessionId, text: parsed.data.message, channel: MCP_SERVE_CHANNEL, signal });
  return ok(result.text);
}
