import { isAbsolute, resolve } from "node:path";
import type { McpServerConfig } from "../config/mcp.ts";
import { PrxError } from "../core/errors.ts";

/**
 * What a stdio server inherits from prx's environment: enough to find programs and run them (npx, uvx, docker),
 * nothing secret. Everything else is given by name in [mcp.servers.<name>] env / env_from.
 */
export const MCP_ENV_PASSTHROUGH = ["PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"] as const;

export type Environment = Record<string, string | undefined>;

/** The child's environment: the passthrough variables, then `env`, then `env_from` (each variable must be set). */
export function serverEnvironment(server: string, config: McpServerConfig, env: Environment): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of MCP_ENV_PASSTHROUGH) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  Object.assign(out, config.env ?? {});
  for (const [name, from] of Object.entries(config.env_from ?? {})) {
    const value = env[from];
    if (value === undefined) {
      throw new PrxError("MCP_UNAVAILABLE", `MCP server "${server}" needs ${from} in prx's environment (env_from ${name}), and it is not set`, {
        hint: `export ${from}=... before starting prx, or remove ${name} from [mcp.servers.${server}] env_from`,
      });
    }
    out[name] = value;
  }
  return out;
}

/** HTTP headers of a url server: each value is a variable's name or text with `${NAME}` in it. */
export function serverHeaders(server: string, config: McpServerConfig, env: Environment): Record<string, string> {
  const headers: Record<string, string> = {};
  const lookup = (name: string, header: string) => {
    const value = env[name];
    if (value === undefined) {
      throw new PrxError("MCP_UNAVAILABLE", `MCP server "${server}" needs ${name} in prx's environment (header ${header}), and it is not set`, {
        hint: `export ${name}=... before starting prx, or change headers_from_env of [mcp.servers.${server}]`,
      });
    }
    return value;
  };
  for (const [header, source] of Object.entries(config.headers_from_env ?? {})) {
    headers[header] = source.includes("${")
      ? source.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => lookup(name, header))
      : lookup(source, header);
  }
  return headers;
}

/** Working directory of a stdio server: `cwd` (relative to the workspace), else the workspace. */
export function serverCwd(config: McpServerConfig, workspaceRoot: string): string {
  return config.cwd === undefined ? workspaceRoot : resolve(workspaceRoot, config.cwd);
}

/** The program to run, as an absolute path: a name is looked up on the server's PATH, a path is taken from its cwd. */
export function resolveCommand(server: string, command: string, cwd: string, path: string | undefined): string {
  if (command.includes("/")) return isAbsolute(command) ? command : resolve(cwd, command);
  const found = Bun.which(command, { PATH: path ?? "", cwd });
  if (found) return found;
  throw new PrxError("MCP_UNAVAILABLE", `MCP server "${server}": command "${command}" is not on PATH`, {
    hint: `install it, or set [mcp.servers.${server}] command to its absolute path`,
  });
}
