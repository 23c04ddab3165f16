import { copyFileSync, existsSync, writeFileSync } from "node:fs";
import { CONFIG_TEMPLATE } from "../config/template.ts";
import { parseConfig } from "../config/loader.ts";
import { openWorkspace } from "../core/workspace.ts";
import { parseCommand } from "./args.ts";

export async function initCommand(argv: string[]): Promise<number> {
  const { values } = parseCommand("prx init", argv, { force: { type: "boolean" } }, false);
  if (values.help) {
    process.stdout.write(
      "Usage: prx init [--workspace DIR] [--force]\n" +
        "Writes a commented config.toml; --force replaces an existing one and keeps it as config.toml.bak.\n",
    );
    return 0;
  }
  const workspace = openWorkspace(values.workspace);
  parseConfig(CONFIG_TEMPLATE, "template"); // the template must always be valid
  if (existsSync(workspace.configPath) && !values.force) {
    process.stdout.write(
      `${workspace.configPath} already exists; kept it (--force replaces it and keeps the old one as config.toml.bak)\n`,
    );
    return 0;
  }
  // --force replaces a config the user may have edited by hand: the previous one is kept beside it.
  const backup = existsSync(workspace.configPath) ? `${workspace.configPath}.bak` : null;
  if (backup) copyFileSync(workspace.configPath, backup);
  writeFileSync(workspace.configPath, CONFIG_TEMPLATE, { mode: 0o600 });
  const kept = backup ? `kept the previous config as ${backup}\n` : "";
  process.stdout.write(
    `${kept}wrote ${workspace.configPath}\nworkspace: ${workspace.root}\nnext: prx chat   (or edit the config to add a provider, then prx doctor)\n`,
  );
  return 0;
}
