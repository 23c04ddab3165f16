import { z } from "zod";
import { chmodSync, renameSync, writeFileSync } from "node:fs";
import { stringify } from "smol-toml";
import { setConfigKey, splitKeyPath, tomlValue, unsetConfigKey } from "../config/edit.ts";
import { loadConfig, parseConfig } from "../config/loader.ts";
import { ConfigSchema } from "../config/schema.ts";
import { readConfigSource } from "../config/source.ts";
import { errorMessage, PrxError } from "../core/errors.ts";
import { ConfigReloadSchema } from "../gateway/routes/config-reload.ts";
import { terminalJson, visible } from "../core/terminal.ts";
import { openWorkspace, type Workspace } from "../core/workspace.ts";
import { parseCommand, unknownName, usageError } from "./args.ts";
import { runningGateway } from "./running-gateway.ts";

export const SUBCOMMANDS = ["show", "validate", "schema", "get", "set", "unset"] as const;

const USAGE = `Usage: prx config show [--json] | validate | schema
       prx config get <key> [--json]      the value in effect (config.toml, else the default)
       prx config set <key> <value>       write one value into config.toml, keeping its comments and layout
       prx config unset <key>             remove one key from config.toml (its default applies again)
  Keys are written as in config.toml: gateway.port, providers.openai.base_url, providers.x.model_info."gpt-4o".vision.
  A value is TOML (8080, true, ["a", "b"], "text"); anything else is taken as a string. The file is checked whole
  before it is written: an edit that makes it invalid is refused and the file stays as it was. The workspace's
  running gateway then applies it (prx says what it did, or what needs a restart).
`;

/** The value at `path` in the effective config, or NOT_FOUND naming the key. */
function valueAt(config: unknown, path: string[]): unknown {
  let value: unknown = config;
  for (const [index, segment] of path.entries()) {
    if (value === null || typeof value !== "object" || !(segment in (value as object))) {
      throw new PrxError("NOT_FOUND", `${path.slice(0, index + 1).join(".")} is not set, or is not a config key`, { hint: "prx config show lists every key in effect; prx config schema describes them" });
    }
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

/** Write the edited file once it validates whole; the old file stays on any failure. */
function writeChecked(workspace: Workspace, source: string): void {
  parseConfig(source, workspace.configPath);
  const staged = `${workspace.configPath}.${process.pid}.tmp`;
  writeFileSync(staged, source, { mode: 0o600 });
  chmodSync(staged, 0o600);
  renameSync(staged, workspace.configPath);
}

/** Ask the workspace's running gateway to apply the file now; what it did, said for the user. */
async function applyInRunningGateway(workspace: Workspace): Promise<string> {
  const gateway = runningGateway(workspace);
  if (!gateway) return "no gateway of this workspace is running; the next one reads it";
  const where = `the running gateway (pid ${gateway.presence.pid})`;
  let outcome;
  try {
    outcome = await gateway.request("POST", "/api/config/reload", ConfigReloadSchema);
  } catch (error) {
    return `${where} was not asked to apply it (${errorMessage(error)}); it applies config.toml when it sees the file change`;
  }
  if (!outcome.ok) return `${where} refused it and keeps its running configuration: ${outcome.error?.message ?? "no reason given"}`;
  const lines: string[] = [];
  if (outcome.applied.length > 0) lines.push(`${where} applied it: ${outcome.applied.join(", ")} (generation ${outcome.generation})`);
  else if (outcome.restart.length === 0) lines.push(`${where} runs with it already (generation ${outcome.generation})`);
  for (const note of outcome.notes) lines.push(`  ${note}`);
  if (outcome.restart.length > 0) lines.push(`restart the gateway to apply: ${outcome.restart.join(", ")}`);
  return lines.join("\n");
}

async function edit(workspace: Workspace, sub: "set" | "unset", args: string[]): Promise<number> {
  const [key, value, extra] = args;
  if (!key) throw usageError(`prx config ${sub}: missing <key>`);
  if (sub === "set" && value === undefined) throw usageError("prx config set: missing <value>");
  const surplus = sub === "set" ? extra : value;
  if (surplus !== undefined) throw usageError(`prx config ${sub}: unexpected argument '${surplus}' (quote a value with spaces)`);
  const path = splitKeyPath(key);
  const source = readConfigSource(workspace.configPath) ?? "";
  const edited = sub === "set" ? setConfigKey(source, path, tomlValue(value!)) : unsetConfigKey(source, path);
  writeChecked(workspace, edited);
  const shown = sub === "set" ? `set ${path.join(".")} = ${tomlValue(value!)}` : `removed ${path.join(".")}`;
  process.stdout.write(visible(`${shown} in ${workspace.configPath}\n`, { multiline: true }));
  process.stdout.write(visible(`${await applyInRunningGateway(workspace)}\n`, { multiline: true }));
  return 0;
}

export async function configCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand("prx config", argv, { json: { type: "boolean" } });
  const sub = positionals[0];
  if (values.help || !sub) {
    process.stdout.write(USAGE);
    return sub || values.help ? 0 : 2;
  }
  if (sub === "schema") {
    process.stdout.write(JSON.stringify(z.toJSONSchema(ConfigSchema, { io: "input" }), null, 2) + "\n");
    return 0;
  }
  if (!SUBCOMMANDS.includes(sub as (typeof SUBCOMMANDS)[number])) throw unknownName("subcommand", sub, SUBCOMMANDS, "prx config");
  const workspace = openWorkspace(values.workspace);
  if (sub === "set" || sub === "unset") return edit(workspace, sub, positionals.slice(1));
  const { config, path } = loadConfig(workspace.configPath);
  if (sub === "validate") {
    process.stdout.write(`${path ?? "(no config.toml: defaults)"}: ok\n`);
    return 0;
  }
  if (sub === "get") {
    const key = positionals[1];
    if (!key) throw usageError("prx config get: missing <key>");
    if (positionals[2] !== undefined) throw usageError(`prx config get: unexpected argument '${positionals[2]}'`);
    const value = valueAt(config, splitKeyPath(key));
    const text = values.json || (value !== null && typeof value === "object") ? terminalJson(value, 2) : String(value);
    process.stdout.write(visible(text, { multiline: true }) + "\n");
    return 0;
  }
  process.stdout.write(values.json ? JSON.stringify(config, null, 2) + "\n" : `# effective configuration (${path ?? "defaults"})\n${stringify(config)}\n`);
  return 0;
}
