#!/usr/bin/env bun
/**
 * prx entry point. Decides the mode from argv before importing anything heavy: `--version` and `--help`
 * must stay instant, and child modes (plugin workers, channel processes) load only what they need.
 */
import { version } from "../../package.json" with { type: "json" };
import { hoistGlobalOptions } from "./global-options.ts";

export const COMMANDS = ["init", "config", "doctor", "agent", "agents", "chat", "gateway", "plugins", "memory", "sessions", "usage", "channel", "mcp", "storage", "audit", "status", "skills", "models", "cron", "service", "logs"] as const;

const HELP = `prx ${version} — a self-hosted AI agent host

Usage: prx <command> [options]

Commands:
  init [--force]                 write a commented config.toml into the workspace
  config show|validate|schema    print, check, or describe the configuration
  config get|set|unset KEY       one value in effect / edit one key of config.toml, keeping its comments
  doctor                         check workspace, config, database, providers and plugins
  status [--json]                the workspace at a glance: config, running gateway, channels, plugins, today's usage
  models [--provider P] [--json] each provider's models with context window, vision and prices
  logs [-f] [--level L] [--since T]   the gateway's log of this workspace; -f follows it
  agent -m "..." [--json]        one turn (or, without -m, a line-by-line interactive agent)
        [--session ID] [--agent ID] [--provider P] [--model M] [--user ID]
  chat [--session ID|--continue] interactive terminal chat with streaming
        [--agent ID] [--provider P] [--model M] [--user ID]   (--user: the user id middleware sees; default the OS user)
  agents list|import             the workspace's agents; an elizaOS character file as an [agents.<id>] table
  gateway [--host H] [--port P]  run the HTTP gateway (also: gateway token create|list|revoke, gateway pair-code)
  plugins list|info|reload|validate|probe   manage plugins
  plugins new|build|test|dev|pack|install   write plugins: scaffold, build, test, hot-reload, ship
  memory list|search|show|store|forget|export|import   see, add and erase what the assistant remembers
  sessions list|show|delete|export   see and erase conversations
  usage [--since DAY|Nd] [--group day|session|model|channel|agent] [--json]   tokens and cost of model calls
  audit [--since] [--tool] [--json]  every tool call: its decision, who made it, outcome and duration
  skills list|info|new|install|remove   Agent Skills (SKILL.md folders): what is offered, and why not
  cron list|rm|run|runs          reminders and scheduled turns the assistant set up (the cron tool)
  storage status|migrate|copy    the [storage] backend: schema version, migrations, SQLite -> PostgreSQL copy
  channel run|list|status|pair   channel processes (Telegram, Slack, Discord, Matrix, webhook) and pairing
  mcp list|tools|call|resources|prompts|serve   MCP servers prx uses; prx as an MCP server (stdio)
  completions bash|zsh|fish      a shell completion script (prx completions --help says how to load it)
  service install|uninstall|status   the gateway of this workspace as a user service (systemd, launchd)

Global options:
  -w, --workspace DIR   workspace directory (default $PRX_WORKSPACE or ~/.prx)
  -h, --help            help
  -V, --version         print the version
`;

interface MainOptions {
  /** Stop quietly when stdout's reader goes away (the process entry point sets it; in-process callers do not). */
  guardStdout?: boolean;
}

async function dispatch(given: string[], options: MainOptions): Promise<number> {
  // `prx -w DIR <command> ...`: global options before the command.
  const argv = hoistGlobalOptions(given, "prx", { commandFollows: true });
  const [command, ...rest] = argv;
  // console.log, not process.stdout: touching process.stdout builds Node's stream machinery, which alone
  // doubles the time of `prx --version` (measured against a compiled hello; bench suite startup).
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    console.log(HELP.slice(0, -1));
    return 0;
  }
  if (command === "--version" || command === "-V" || command === "version") {
    console.log(`prx ${version}`);
    return 0;
  }
  // the gateway prints with console.log, `prx agent` and `prx channel` guard their own output (stdout.ts)
  if (options.guardStdout && command !== "gateway" && command !== "agent" && command !== "channel") (await import("./stdout.ts")).exitQuietlyOnClosedStdout();
  switch (command) {
    case "init":
      return (await import("./init.ts")).initCommand(rest);
    case "config":
      return (await import("./config.ts")).configCommand(rest);
    case "doctor":
      return (await import("./doctor.ts")).doctorCommand(rest);
    case "status":
      return (await import("./status.ts")).statusCommand(rest);
    case "logs":
      return (await import("./logs.ts")).logsCommand(rest);
    case "models":
      return (await import("./models.ts")).modelsCommand(rest);
    case "agent":
      return (await import("./agent.ts")).agentCommand(rest);
    case "agents":
      return (await import("./agents.ts")).agentsCommand(rest);
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
    case "usage":
      return (await import("./usage.ts")).usageCommand(rest);
    case "audit":
      return (await import("./audit.ts")).auditCommand(rest);
    case "skills":
      return (await import("./skills.ts")).skillsCommand(rest);
    case "cron":
      return (await import("./cron.ts")).cronCommand(rest);
    case "channel":
      return (await import("./channel.ts")).channelCommand(rest);
    case "mcp":
      return (await import("./mcp.ts")).mcpCommand(rest);
    case "__plugin-sandbox":
      // the test sandbox of @prx/kit/test (`prx plugins test`), started over IPC
      return (await import("../plugins/kit/sandbox/server.ts")).runSandboxServer();
    case "storage":
      return (await import("./storage.ts")).storageCommand(rest);
    case "service":
      return (await import("./service.ts")).serviceCommand(rest);
    case "completions":
      return (await import("./completions.ts")).completionsCommand(rest, COMMANDS);
    case "__remote-plugin-child":
      // The compiled binary re-executes itself as a remote plugin subprocess (NDJSON over stdio).
      await (await import("../plugins/remote/child-main.ts")).runRemoteChild(rest);
      return 0;
  }
  const { unknownName } = await import("./args.ts");
  throw unknownName("command", command, command.startsWith("-") ? ["--help", "--version"] : COMMANDS);
}

export async function main(argv: string[], options: MainOptions = {}): Promise<number> {
  try {
    return await dispatch(argv, options);
  } catch (error) {
    const { PrxError } = await import("../core/errors.ts");
    // an error may quote a plugin, a server or stored text
    const { visible } = await import("../core/terminal.ts");
    if (error instanceof PrxError) {
      process.stderr.write(`error: ${visible(error.describe(), { multiline: true })}\n`);
      return error.code === "USAGE" ? 2 : 1;
    }
    process.stderr.write(`error: ${visible((error as Error)?.stack ?? String(error), { multiline: true })}\n`);
    return 1;
  }
}

if (import.meta.main) {
  const code = await main(process.argv.slice(2), { guardStdout: true });
  process.exitCode = code;
}
