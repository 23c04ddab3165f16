import { SUBCOMMANDS as AGENTS } from "./agents.ts";
import { SUBCOMMANDS as CHANNEL } from "./channel.ts";
import { SUBCOMMANDS as CONFIG } from "./config.ts";
import { SUBCOMMANDS as CRON } from "./cron.ts";
import { SUBCOMMANDS as MCP } from "./mcp.ts";
import { SUBCOMMANDS as MEMORY } from "./memory.ts";
import { SUBCOMMANDS as PLUGINS } from "./plugins.ts";
import { SUBCOMMANDS as SESSIONS } from "./sessions.ts";
import { SUBCOMMANDS as SKILLS } from "./skills.ts";
import { SUBCOMMANDS as SERVICE } from "./service.ts";
import { SUBCOMMANDS as STORAGE } from "./storage.ts";
import { usageError } from "./args.ts";

export const SHELLS = ["bash", "zsh", "fish"] as const;

const USAGE = `Usage: prx completions bash|zsh|fish
  prints a completion script for the shell. To load it:
    bash: echo 'source <(prx completions bash)' >> ~/.bashrc
    zsh:  echo 'source <(prx completions zsh)' >> ~/.zshrc      (after compinit)
    fish: prx completions fish > ~/.config/fish/completions/prx.fish
`;

/** Each command's subcommands (the words completed after it); commands without any complete options only. */
export const COMPLETED_SUBCOMMANDS: Record<string, readonly string[]> = {
  init: [],
  config: CONFIG,
  doctor: [],
  status: [],
  models: [],
  logs: [],
  agent: [],
  agents: AGENTS,
  chat: [],
  gateway: ["token", "pair-code"],
  plugins: PLUGINS,
  memory: MEMORY,
  sessions: SESSIONS,
  usage: [],
  audit: [],
  skills: SKILLS,
  cron: CRON,
  storage: STORAGE,
  channel: CHANNEL,
  mcp: MCP,
  service: SERVICE,
  completions: SHELLS,
};

const GLOBAL_OPTIONS = ["--workspace", "--help", "--version", "--json"];

function bash(commands: readonly string[]): string {
  const cases = commands
    .filter((command) => (COMPLETED_SUBCOMMANDS[command] ?? []).length > 0)
    .map((command) => `    ${command}) words="${COMPLETED_SUBCOMMANDS[command]!.join(" ")}" ;;`)
    .join("\n");
  return `# prx completions for bash
_prx() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" words=""
  if [[ \${COMP_CWORD} -eq 1 ]]; then
    words="${commands.join(" ")}"
  elif [[ \${COMP_CWORD} -eq 2 ]]; then
    case "\${COMP_WORDS[1]}" in
${cases}
    esac
  fi
  if [[ "$cur" == -* ]]; then words="${GLOBAL_OPTIONS.join(" ")}"; fi
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
}
complete -o default -F _prx prx
`;
}

function zsh(commands: readonly string[]): string {
  const cases = commands
    .filter((command) => (COMPLETED_SUBCOMMANDS[command] ?? []).length > 0)
    .map((command) => `    ${command}) compadd -- ${COMPLETED_SUBCOMMANDS[command]!.join(" ")} ;;`)
    .join("\n");
  return `#compdef prx
# prx completions for zsh
_prx() {
  if [[ $words[CURRENT] == -* ]]; then compadd -- ${GLOBAL_OPTIONS.join(" ")}; return; fi
  if (( CURRENT == 2 )); then compadd -- ${commands.join(" ")}; return; fi
  if (( CURRENT == 3 )); then
    case $words[2] in
${cases}
    esac
  fi
}
compdef _prx prx
`;
}

function fish(commands: readonly string[]): string {
  const lines = [
    "# prx completions for fish",
    "complete -c prx -f",
    `complete -c prx -n "__fish_use_subcommand" -a "${commands.join(" ")}"`,
    ...commands
      .filter((command) => (COMPLETED_SUBCOMMANDS[command] ?? []).length > 0)
      .map((command) => `complete -c prx -n "__fish_seen_subcommand_from ${command}" -a "${COMPLETED_SUBCOMMANDS[command]!.join(" ")}"`),
    'complete -c prx -s w -l workspace -r -d "workspace directory"',
    'complete -c prx -l json -d "JSON output"',
    'complete -c prx -s h -l help -d "help"',
  ];
  return `${lines.join("\n")}\n`;
}

/** `prx completions <shell>`: the script on stdout. `commands`: prx's top-level commands (main.ts). */
export function completionsCommand(argv: string[], commands: readonly string[]): number {
  const [shell, extra] = argv;
  if (shell === "--help" || shell === "-h") {
    process.stdout.write(USAGE);
    return 0;
  }
  if (!shell || !(SHELLS as readonly string[]).includes(shell)) throw usageError(`prx completions: name a shell: ${SHELLS.join(", ")}`);
  if (extra !== undefined) throw usageError(`prx completions: unexpected argument '${extra}'`);
  const all = [...commands, "completions"];
  process.stdout.write(shell === "bash" ? bash(all) : shell === "zsh" ? zsh(all) : fish(all));
  return 0;
}
