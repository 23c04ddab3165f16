import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { stringify } from "smol-toml";
import { resolveAgents } from "../agents/resolve.ts";
import { adviseOnPlugins, type PluginAdvice } from "../agents/character-plugins.ts";
import { characterId, characterProfile, checkCharacterSize, parseCharacter } from "../agents/character.ts";
import { loadConfig, parseConfig } from "../config/loader.ts";
import { AGENT_ID_PATTERN, type AgentProfile } from "../config/schema.ts";
import { PrxError } from "../core/errors.ts";
import { terminalJson, visible } from "../core/terminal.ts";
import { openWorkspace } from "../core/workspace.ts";
import { parseCommand, unknownName, usageError } from "./args.ts";

export const SUBCOMMANDS = ["list", "import"] as const;

const USAGE = `Usage: prx agents list [--json]
       prx agents import CHARACTER.json [--id ID] [--write] [--json]

  list     the workspace's agents ([agents.*]; always main) with their provider, model and memory scope
  import   an elizaOS character file as an [agents.<id>] table: its name, bio and a system prompt composed of its
           bio, lore, adjectives, topics, style and examples as elizaOS composes them; its memory is its own.
           Prints the table (--write appends it to the workspace's config.toml) and what becomes of each of its
           plugins: built into prx, a [providers] or [channels] entry, or a remote plugin with its install steps.
  --id ID  the agent id (default: made of the character's name)
`;

export async function agentsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand("prx agents", argv, {
    json: { type: "boolean" },
    id: { type: "string" },
    write: { type: "boolean" },
  });
  const [sub, ...args] = positionals;
  if (values.help || sub === undefined) {
    (values.help ? process.stdout : process.stderr).write(USAGE);
    return values.help ? 0 : 2;
  }
  if (!(SUBCOMMANDS as readonly string[]).includes(sub)) throw unknownName("subcommand", sub, SUBCOMMANDS, "prx agents");
  const workspace = openWorkspace(values.workspace);
  if (sub === "list") {
    if (args.length) throw usageError("prx agents list takes no arguments");
    const agents = [...resolveAgents(loadConfig(workspace.configPath).config).values()].map((agent) => ({
      id: agent.id,
      name: agent.name,
      provider: agent.config.default_provider,
      model: agent.config.default_model,
      memory_scope: agent.memoryScope,
    }));
    if (values.json) process.stdout.write(terminalJson({ agents }) + "\n");
    else for (const a of agents) process.stdout.write(`${visible(a.id)}  ${visible(a.name)}  ${visible(a.provider)}/${visible(a.model)}  memory ${a.memory_scope}\n`);
    return 0;
  }
  if (args.length !== 1) throw usageError("prx agents import takes one character file");
  const file = args[0]!;
  const character = parseCharacter(readCharacter(file), file);
  const id = values.id ?? characterId(character.name);
  if (!AGENT_ID_PATTERN.test(id)) throw usageError(`prx agents import: --id "${id}" is not an agent id (lowercase letters, digits, _ and -, at most 32)`);
  const profile = characterProfile(character);
  const table = stringify({ agents: { [id]: withoutDefaults(profile) } });
  const plugins = adviseOnPlugins(character.plugins ?? []);
  if (values.write) appendAgent(workspace.configPath, id, table);
  if (values.json) {
    process.stdout.write(terminalJson({ id, agent: profile, toml: table, plugins, written: values.write === true }) + "\n");
    return 0;
  }
  process.stdout.write(values.write ? `added [agents.${id}] to ${workspace.configPath}\n` : `${table}\n`);
  if (plugins.length) process.stdout.write(`\nplugins of ${visible(character.name)}:\n${plugins.map(adviceLines).join("\n")}\n`);
  return 0;
}

/** The file's text, refused by its size before it is read. */
function readCharacter(file: string): string {
  try {
    checkCharacterSize(statSync(file).size, file);
    return readFileSync(file, "utf8");
  } catch (cause) {
    if (cause instanceof PrxError) throw cause;
    throw new PrxError("NOT_FOUND", `cannot read ${file}: ${(cause as Error).message}`, { cause, hint: "give the path of an elizaOS character .json file" });
  }
}

/** The table as config.toml would hold it: an empty deny list is the default and left out. */
function withoutDefaults(profile: AgentProfile): Record<string, unknown> {
  const { tools, ...rest } = profile;
  return tools.deny.length || tools.allow ? profile : rest;
}

/** Appends the table, then checks the whole file; a file that would not load is left as it was. */
function appendAgent(path: string, id: string, table: string): void {
  const before = existsSync(path) ? readFileSync(path, "utf8") : "";
  if (before && id in parseConfig(before, path).agents) {
    throw new PrxError("CONFLICT", `${path} has an [agents.${id}] table already`, { hint: "import under another id with --id ID" });
  }
  const after = `${before}${before === "" || before.endsWith("\n") ? "" : "\n"}\n${table}`;
  parseConfig(after, path);
  writeFileSync(path, after);
}

function adviceLines(advice: PluginAdvice): string {
  const head = `  ${visible(advice.plugin)}: ${advice.kind} — ${advice.note}`;
  return advice.install ? `${head}\n${advice.install.map((step) => `      ${visible(step)}`).join("\n")}` : head;
}
