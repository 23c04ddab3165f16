import { z } from "zod";
import { stringify } from "smol-toml";
import { loadConfig } from "../config/loader.ts";
import { ConfigSchema } from "../config/schema.ts";
import { openWorkspace } from "../core/workspace.ts";
import { parseCommand, unknownName } from "./args.ts";

const SUBCOMMANDS = ["show", "validate", "schema"] as const;

export async function configCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand("prx config", argv, { json: { type: "boolean" } });
  const sub = positionals[0];
  if (values.help || !sub) {
    process.stdout.write("Usage: prx config show [--json] | validate | schema\n");
    return sub || values.help ? 0 : 2;
  }
  if (sub === "schema") {
    process.stdout.write(JSON.stringify(z.toJSONSchema(ConfigSchema, { io: "input" }), null, 2) + "\n");
    return 0;
  }
  if (!SUBCOMMANDS.includes(sub as (typeof SUBCOMMANDS)[number])) throw unknownName("subcommand", sub, SUBCOMMANDS, "prx config");
  const workspace = openWorkspace(values.workspace);
  const { config, path } = loadConfig(workspace.configPath);
  if (sub === "validate") {
    process.stdout.write(`${path ?? "(no config.toml: defaults)"}: ok\n`);
    return 0;
  }
  process.stdout.write(values.json ? JSON.stringify(config, null, 2) + "\n" : `# effective configuration (${path ?? "defaults"})\n${stringify(config)}\n`);
  return 0;
}
