#!/usr/bin/env bun
/**
 * prx entry point. Decides the mode from argv before importing anything heavy: `--version` and `--help`
 * must stay instant, and child modes (plugin workers, channel processes) load only what they need.
 */
import { version } from "../../package.json" with { type: "json" };
import { hoistGlobalOptions } from "./global-options.ts";

const COMMANDS = ["init", "config", "doctor", "agent", "chat", "gateway", "plugins", "memory", "sessions", "channel", "mcp", "storage"] as const;

const HELP = `prx ${version} — a self-hosted AI agent host

Usage: prx <command> [options]

Commands:
  init [--force]                 write a commented config.toml into the workspace
  config show|validate|schema    print, check, or describe the configuration
  doctor                         check workspace, config, database, providers and plugins
  agent -m "..." [--json]        one turn (or, without -m, a line-by-line interactive agent)
        [--session ID] [--provider P] [--model M] [--user ID]
  chat [--session ID|--continue] interactive terminal chat with streaming
        [--provider P] [--model M] [--user ID]   (--user: the user id middleware sees; default the OS user)
  gateway [--host H] [--port P]  run the HTTP gateway (also: gateway token create|list|revoke)
  plugins list|info|reload|validate|probe   manage plugins
  memory list|search|show|store|forget|export|import   see, add and erase what the assistant remembers
  sessions list|show|delete|export   see and erase conversations
  storage status|migrate|copy    the [storage] backend: schema version, migrations, SQLite -> PostgreSQL copy
  channel run|list|status|pair   channel processes (Telegram, Slack, Discord, Matrix, webhook) and pairing
  mcp list|tools|call|resources|prompts|serve   MCP servers prx uses; prx as an MCP server (stdio)

Global options:
  -w, --workspace DIR   workspace directory (default $PRX_WORKSPACE or ~/.prx)
  -h, --help            help
  -V, --version         print the version
`;

async function dispatch(given: string[]): Promise<number> {
  // `prx -w DIR <command> ...`: global options before the command.
  const argv = hoistGlobalOptions(given, "prx", { commandFollows: true });
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(HELP);
    return 0;
  }
  if (command === "--version" || command === "-V" || command === "version") {
    process.stdout.write(`prx ${version}\n`);
    return 0;
  }
  switch (command) {
    case "init":
      return (await import("./init.ts")).initCommand(rest);
    case "config":
      return (await import("./config.ts")).configCommand(rest);
    case "doctor":
      return (await import("./doctor.ts")).doctorCommand(rest);
    case "agent":
      return (await import("./agent.ts")).agentCommand(rest);
    case "chat":
      return (await import("./chat.ts")).chatCommand(rest);
    case "gateway":
      return (await import("./gateway.ts")).gatewayCommand(rest, {});
    case "plugins":
      return (await import("./plugins.ts")).pluginsCommand(rest, {});
    case "memory":
      return (await import("./memory.ts")).memoryCommand(rest);
    case "sessions":
      return (await import("./sessions.ts")).sessionsCommand(rest);
    case "channel":
      return (await import("./channel.ts")).channelCommand(rest);
    case "mcp":
      return (await import("./mcp.ts")).mcpCommand(rest);
    case "storage":
      return (await import("./storage.ts")).storageCommand(rest);
    case "__remote-plugin-child":
      // The compiled binary re-executes itself as a remote plugin subprocess (NDJSON over stdio).
      await (await import("../plugins/remote/child-main.ts")).runRemoteChild(rest);
      return 0;
  }
  const { unknownName } = await import("./args.ts");
  throw unknownName("command", command, command.startsWith("-") ? ["--help", "--version"] : COMMANDS);
}

export async function main(argv: string[]): Promise<number> {
  try {
    return await dispatch(argv);
  } catch (error) {
    const { PrxError } = await import("../core/errors.ts");
    if (error instanceof PrxError) {
      process.stderr.write(`error: ${error.describe()}\n`);
      return error.code === "USAGE" ? 2 : 1;
    }
    process.stderr.write(`error: ${(error as Error)?.stack ?? String(error)}\n`);
    return 1;
  }
}

/**
 * Output piped into a command that exits early (`prx agent ... | head -1`) closes our stdout: stop quietly with 0,
 * as CLI tools do, instead of a stack trace.
 */
export function exitQuietlyOnClosedStdout(): void {
  const quit = (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(0);
  };
  process.stdout.on("error", quit);
}

if (import.meta.main) {
  exitQuietlyOnClosedStdout();
  const code = await main(process.argv.slice(2));
  process.exitCode = code;
}
