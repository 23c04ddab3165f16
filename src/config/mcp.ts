import { z } from "zod";
import { TOOL_NAME_PATTERN, TOOL_NAME_RULE } from "../core/tool-names.ts";

/**
 * `[mcp]` of config.toml: MCP servers prx connects to (`[mcp.servers.<name>]`) and what `prx mcp serve` exposes
 * (`[mcp.serve]`). Secrets never live here: a server's environment and headers name the variables that hold them.
 */

/** Longest server name: `mcp__<server>__` must leave room for the tool's own name in 64 characters. */
export const MCP_SERVER_NAME_MAX = 32;
/** Most servers one config may declare. */
export const MCP_MAX_SERVERS = 64;
/** Most arguments of a stdio server's command. */
export const MCP_MAX_ARGS = 256;
/** Longest tool name a server may declare (and a `tools` / `exclude` entry). */
export const MCP_TOOL_NAME_MAX_CHARS = 256;
/**
 * Letters, digits and `-`, with single `_` between them: no `__` and no `_` at either end, so `mcp__<server>__<tool>`
 * says where the server's name ends.
 */
export const MCP_SERVER_NAME_PATTERN = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;
export const MCP_SERVER_NAME_RULE = `1-${MCP_SERVER_NAME_MAX} letters, digits and -, with single _ between them`;
export function isMcpServerName(name: string): boolean {
  return name.length <= MCP_SERVER_NAME_MAX && MCP_SERVER_NAME_PATTERN.test(name);
}

/** `[mcp.serve] tools` entry meaning "every tool the workspace's plugins serve". */
export const MCP_SERVE_PLUGIN_TOOLS = "@plugins";
/** What `prx mcp serve` exposes when `[mcp.serve] tools` is not set: memory and plugin tools (no shell, no files). */
export const MCP_SERVE_DEFAULT_TOOLS = ["memory_store", "memory_recall", "memory_forget", MCP_SERVE_PLUGIN_TOOLS];

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const EnvName = z.string().regex(ENV_NAME, "an environment variable name (letters, digits, _)");
/** A header value from the environment: a variable's name, or text with `${NAME}` in it ("Bearer ${TOKEN}"). */
const HeaderSource = z
  .string()
  .regex(/^(?:[A-Za-z_][A-Za-z0-9_]*|.*\$\{[A-Za-z_][A-Za-z0-9_]*\}.*)$/, 'a variable name, or text with "${NAME}" in it');
/** A tool name of the server as it declares it, or a prefix ending in `*`. */
const ToolPattern = z.string().min(1).max(MCP_TOOL_NAME_MAX_CHARS);

const STDIO_ONLY = ["args", "env", "env_from", "cwd"] as const;

export const McpServerConfigSchema = z
  .strictObject({
    command: z.string().min(1).optional().describe("stdio: the program to start (looked up on PATH)"),
    args: z.array(z.string()).max(MCP_MAX_ARGS).optional().describe("stdio: its arguments"),
    env: z.record(EnvName, z.string()).optional().describe("stdio: literal environment variables (no secrets)"),
    env_from: z
      .record(EnvName, EnvName)
      .optional()
      .describe("stdio: variables taken from prx's environment: name in the server -> name in prx's environment"),
    cwd: z.string().min(1).optional().describe("stdio: working directory (relative: to the workspace)"),
    url: z.url({ protocol: /^https?$/ }).optional().describe("Streamable HTTP endpoint (falls back to SSE)"),
    headers_from_env: z
      .record(z.string().regex(/^[A-Za-z0-9-]+$/, "a header name"), HeaderSource)
      .optional()
      .describe('HTTP headers from the environment: { Authorization = "Bearer ${TOKEN}" } or { X-Key = "KEY_VAR" }'),
    enabled: z.boolean().default(true),
    eager: z.boolean().default(false).describe("start with the gateway instead of on first use"),
    tools: z.array(ToolPattern).optional().describe("only these tools (server's names; a trailing * is a prefix)"),
    exclude: z.array(ToolPattern).default([]).describe("never these tools"),
    timeout_ms: z.number().int().min(100).max(3_600_000).default(60_000).describe("per tool call"),
    startup_timeout_ms: z.number().int().min(100).max(600_000).default(30_000).describe("start and handshake"),
  })
  .superRefine((server, ctx) => {
    if ((server.command === undefined) === (server.url === undefined)) {
      ctx.addIssue({ code: "custom", message: "set either command (stdio) or url (Streamable HTTP), not both" });
    }
    if (server.url !== undefined) {
      for (const key of STDIO_ONLY) {
        if (server[key] !== undefined) ctx.addIssue({ code: "custom", path: [key], message: `${key} is for stdio servers (command); remove it or use command` });
      }
    }
    if (server.command !== undefined && server.headers_from_env !== undefined) {
      ctx.addIssue({ code: "custom", path: ["headers_from_env"], message: "headers_from_env is for url servers" });
    }
  })
  .describe("one MCP server prx connects to");

const ServeToolEntry = z
  .string()
  .refine((name) => name === MCP_SERVE_PLUGIN_TOOLS || TOOL_NAME_PATTERN.test(name), {
    message: `a tool name (${TOOL_NAME_RULE}) or "${MCP_SERVE_PLUGIN_TOOLS}"`,
  });

export const McpServeConfigSchema = z.strictObject({
  tools: z
    .array(ServeToolEntry)
    .default(() => [...MCP_SERVE_DEFAULT_TOOLS])
    .describe(`tools prx mcp serve exposes: names (prx_chat runs one agent turn) and "${MCP_SERVE_PLUGIN_TOOLS}"`),
});

export const McpConfigSchema = z.strictObject({
  servers: z
    .record(z.string(), McpServerConfigSchema)
    .superRefine((servers, ctx) => {
      const names = Object.keys(servers);
      if (names.length > MCP_MAX_SERVERS) {
        ctx.addIssue({ code: "custom", message: `${names.length} MCP servers; at most ${MCP_MAX_SERVERS} are allowed` });
      }
      for (const name of names) {
        if (!isMcpServerName(name)) {
          ctx.addIssue({ code: "custom", path: [name], message: `invalid server name "${name}": a server name is ${MCP_SERVER_NAME_RULE}` });
        }
      }
    })
    .default({}),
  serve: McpServeConfigSchema.default(McpServeConfigSchema.parse({})),
});

export type McpConfig = z.infer<typeof McpConfigSchema>;
export type McpServerConfig = z.infer<typeof McpServerConfigSchema>;
export type McpServeConfig = z.infer<typeof McpServeConfigSchema>;
