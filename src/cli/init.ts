import { existsSync, writeFileSync } from "node:fs";
import { CONFIG_TEMPLATE } from "../config/template.ts";
import { parseConfig } from "../config/loader.ts";
import { openWorkspace } from "../core/workspace.ts";
import { parseCommand } from "./args.ts";

export async function initCommand(argv: string[]): Promise<number> {
  const { values } = parseCommand("prx init", argv, { force: { type: "boolean" } }, false);
  if (values.help) {
    process.stdout.write("Usage: prx init [--workspace DIR] [--force]\nWrites a commented config.toml.\n");
    return 0;
  }
  const workspace = openWorkspace(values.workspace);
  parseConfig(CONFIG_TEMPLATE, "template"); // the template must always be valid
  if (existsSync(workspace.configPath) && !values.force) {
    process.stdout.write(`${workspace.configPath} already exists; kept it (use --force to overwrite)\n`);
    return 0;
  }
  writeFileSync(workspace.configPath, CONFIG_TEMPLATE, { mode: 0o600 });
  process.stdout.write(
    `wrote ${workspace.configPath}\nworkspace: ${workspace.root}\nnext: prx chat   (or edit the config to add a provider, then prx doctor)\n`,
  );
  return 0;
}
