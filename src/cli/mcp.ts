import { version } from "../../package.json" with { type: "json" };
import { lazyChannelDeliverer } from "../channels/deliver-lazy.ts";
import type { AgentHost } from "../agent/host.ts";
import type { McpServerStatus } from "../contracts/mcp.ts";
import { errorMessage } from "../core/errors.ts";
import { terminalJson, visible } from "../core/terminal.ts";
import type { McpManager } from "../mcp/manager.ts";
import { parseCommand, unknownName, usageError } from "./args.ts";

export const SUBCOMMANDS = ["list", "tools", "call", "resources", "prompts", "serve"] as const;
const USAGE = `Usage: prx mcp <command> [--json]
  list                          every MCP server of config.toml: state, tools as the model sees them (starts each)
  tools <server>                one server's tools with their input schemas
  call <server> <tool> [<json>] call a tool (its own name) with a JSON object of arguments, through prx's tool
                                registry as the model would; exit 1 when the call fails
  resources <server>            the server's resources
  prompts <server>              the server's prompts and their arguments
  serve                         be an MCP server on stdin/stdout for Claude Desktop, Cursor or any MCP client,
                                exposing [mcp.serve] tools (default: memory and plugin tools); logs go to stderr
`;

/** Plugin, server and stored text reach the terminal only through visible(); JSON goes through terminalJson. */
function out(text: string): void {
  const shown = visible(text, { multiline: true });
  process.stdout.write(shown.endsWith("\n") ? shown : shown + "\n");
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((row) => row[col]!.length)));
  return rows.map((row) => row.map((cell, col) => cell.padEnd(widths[col]!)).join("  ").trimEnd()).join("\n");
}

function formatServer(s: McpServerStatus): string[] {
  const lines = [`${s.name}: ${s.state} (${s.transport}: ${s.target})${s.pid ? ` pid ${s.pid}` : ""}`];
  if (s.last_error) lines.push(`  last error: ${s.last_error}`);
  for (const tool of s.tools) lines.push(`  ${tool.name}${tool.description ? ` — ${tool.description.split("\n")[0]}` : ""}`);
  if (s.tools.length === 0 && s.state !== "disabled") lines.push("  (no tools)");
  return lines;
}

/** A host with the MCP servers and the built-in tools (no plugins): calls take the registry's path. */
async function openMcpHost(workspace: string | undefined): Promise<{ host: AgentHost; manager: McpManager }> {
  const { openAgentHost } = await import("../agent/host.ts");
  const { mcpClientExtension } = await import("../mcp/extension.ts");
  const mcp = mcpClientExtension({ clientVersion: version });
  const host = await openAgentHost({ workspace, extend: mcp.wrap(), deliver: lazyChannelDeliverer });
  const manager = mcp.manager();
  if (!manager) {
    await host.close();
    throw usageError(`prx mcp: no MCP server in ${host.workspace.configPath}; add one as [mcp.servers.<name>] (command = "..." or url = "...")`);
  }
  return { host, manager };
}

async function serve(workspace: string | undefined): Promise<number> {
  const { reserveStdout, serveStdio } = await import("../mcp/serve/stdio.ts");
  // before anything loads: from here on only the protocol reaches stdout
  const stdout = reserveStdout();
  const { openHost } = await import("./open-host.ts");
  const { servedTools } = await import("../mcp/serve/exposed.ts");
  // an MCP client lists tools once when it connects: serve only once every plugin is in
  const host = await openHost(workspace, { oneShot: true });
  try {
    await serveStdio(servedTools(host, host.config.mcp.serve.tools), version, stdout);
  } finally {
    await host.close();
  }
  return 0;
}

export async function mcpCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand("prx mcp", argv, { json: { type: "boolean" } });
  const [sub, server, tool, json] = positionals;
  if (values.help || !sub) {
    process.stdout.write(USAGE);
    return sub || values.help ? 0 : 2;
  }
  if (!SUBCOMMANDS.includes(sub as (typeof SUBCOMMANDS)[number])) throw unknownName("subcommand", sub, SUBCOMMANDS, "prx mcp");
  if (sub === "serve") return serve(values.workspace);
  if (sub !== "list" && !server) throw usageError(`prx mcp ${sub}: missing <server>`);
  if (sub === "call" && !tool) throw usageError("prx mcp call: missing <tool> (see prx mcp tools <server>)");
  const allowed = sub === "list" ? 0 : sub === "call" ? 3 : 1;
  if (positionals.length - 1 > allowed) throw usageError(`prx mcp ${sub}: unexpected argument '${positionals[allowed + 1]}'`);
  let args: Record<string, unknown> = {};
  if (sub === "call" && json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch (error) {
      throw usageError(`prx mcp call: the arguments must be a JSON object: ${errorMessage(error)}`);
    }
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw usageError("prx mcp call: the arguments must be a JSON object");
    args = parsed as Record<string, unknown>;
  }
  const { host, manager } = await openMcpHost(values.workspace);
  try {
    const { serverStatus } = await import("../mcp/status.ts");
    switch (sub) {
      case "list": {
        await manager.connectAll();
        const servers = manager.handles().map((handle) => serverStatus(manager, handle));
        if (values.json) out(terminalJson({ servers }, 2));
        else {
          out(table([["SERVER", "STATE", "TRANSPORT", "TOOLS", "TARGET"], ...servers.map((s) => [s.name, s.state, s.transport, String(s.tools.length), s.target])]));
          for (const s of servers) out(formatServer(s).join("\n"));
        }
        return servers.some((s) => s.enabled && s.state !== "ready") ? 1 : 0;
      }
      case "tools": {
        const handle = manager.handle(server!);
        const tools = await handle.listTools();
        const names = new Map(manager.namedTools().filter((t) => t.server === server).map((t) => [t.tool, t.name]));
        const rows = tools.map((t) => ({ name: names.get(t.name) ?? null, tool: t.name, description: t.description, input_schema: t.inputSchema }));
        if (values.json) out(terminalJson({ server, tools: rows }, 2));
        else for (const r of rows) out(`${r.tool}${r.name ? ` (model name ${r.name})` : " (left out by tools / exclude)"}\n  ${r.description.split("\n")[0]}\n  input: ${JSON.stringify(r.input_schema)}`);
        return 0;
      }
      case "call": {
        const { callServerTool } = await import("../mcp/call.ts");
        const result = await callServerTool(host, manager, server!, tool!, args, new AbortController().signal);
        if (values.json) out(terminalJson(result, 2));
        else if (result.success) out(result.output);
        else process.stderr.write(visible(`error: ${result.error}\n${result.output ? result.output + "\n" : ""}`, { multiline: true }));
        return result.success ? 0 : 1;
      }
      case "resources": {
        const resources = await manager.handle(server!).listResources();
        if (values.json) out(terminalJson({ server, resources }, 2));
        else if (resources.length === 0) out(`${server} offers no resources`);
        else out(table([["URI", "NAME", "TYPE"], ...resources.map((r) => [r.uri, r.name, r.mime_type ?? ""])]));
        return 0;
      }
      default: {
        const prompts = await manager.handle(server!).listPrompts();
        if (values.json) out(terminalJson({ server, prompts }, 2));
        else if (prompts.length === 0) out(`${server} offers no prompts`);
        else for (const p of prompts) out(`${p.name}(${p.arguments.map((a) => a.name + (a.required ? "" : "?")).join(", ")})${p.description ? ` — ${p.description}` : ""}`);
        return 0;
      }
    }
  } finally {
    await host.close();
  }
}
