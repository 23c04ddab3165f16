import type { ToolRisk } from "./types.ts";

/**
 * The risk class of each built-in tool (and of the ones prx ships beside them). Plugin, MCP and skill tools take the
 * class they declare; with none they are "unknown" and asked for like any class but read.
 */
const BUILTIN_RISK: Readonly<Record<string, ToolRisk>> = {
  memory_recall: "read",
  memory_store: "write",
  memory_forget: "write",
  file_read: "read",
  file_write: "write",
  file_edit: "write",
  http_request: "network",
  web_fetch: "network",
  web_search: "network",
  shell: "execute",
  message_send: "message",
  cron: "write",
  wasm_plugins_manage: "execute",
  sessions_list: "read",
  sessions_history: "read",
  // a helper's own tool calls pass the gate one by one
  delegate: "read",
};

/**
 * Tools `supervised` runs without asking although they write: they touch only the agent's own memory. An
 * `[autonomy.tools]` entry still overrides them.
 */
export const SUPERVISED_DEFAULT_ALLOW: ReadonlySet<string> = new Set(["memory_store", "memory_forget"]);

/** The class of a call: the tool's own declaration, else the built-in table, else unknown. */
export function riskOf(name: string, declared: ToolRisk | undefined): ToolRisk {
  return declared ?? BUILTIN_RISK[name] ?? "unknown";
}
