import { loadConfig } from "../config/loader.ts";
import { terminalJson } from "../core/terminal.ts";
import { openWorkspace, type Workspace } from "../core/workspace.ts";
import { reloadInGateway, type ReloadOutcome } from "../plugins/kit/dev/reload-client.ts";
import { gatewayAccess } from "./running-gateway.ts";
import { addNpmPlugin, removeNpmPlugin, updateNpmPlugin } from "../plugins/npm/index.ts";
import { parseCommand, usageError } from "./args.ts";

/** `prx plugins add|update|remove`: elizaOS plugins from npm. */
export const NPM_SUBCOMMANDS = ["add", "update", "remove"] as const;
export type NpmSubcommand = (typeof NPM_SUBCOMMANDS)[number];

const USAGE = `Usage: prx plugins add <npm-package>[@version] [--transport worker|process] [--name N] [--allow-scripts] [--url U]
       prx plugins update <name> [version] [--allow-scripts] [--url U]
       prx plugins remove <name> [--url U]
  add: a plugin folder plugins/<name>/ (default name: the package's without its scope and "plugin-") for an elizaOS
  plugin from npm: package.json, worker.js bootstrapping it, plugin.toml with runtime = "remote". Installed with the
  Bun inside prx (bun.lock kept; packages' install scripts are not run unless --allow-scripts), checked as validate
  checks, then loaded by the workspace's running gateway (U: its address, default from config.toml [gateway]); with
  no gateway running it loads at the next start. update: the package at [version] (default: latest), reloaded.
  remove: the folder of a plugin added this way, and the gateway unloads it.
`;

/** The workspace's running gateway reloads `plugin` with a token made for it (forced for a removed one: it goes away). */
async function reloadRunning(workspace: Workspace, plugin: string, url: string | undefined, removed = false): Promise<ReloadOutcome> {
  const { config } = loadConfig(workspace.configPath);
  const access = await gatewayAccess(workspace, config, `prx plugins ${removed ? "remove" : "add"} ${plugin}`, url);
  try {
    return await reloadInGateway(access.url, access.token, plugin, removed);
  } finally {
    await access.release();
  }
}

function describeReload(name: string, reload: ReloadOutcome): string {
  switch (reload.kind) {
    case "reloaded":
      return `the running gateway reloaded: generation ${reload.generation} (${name}: ${reload.outcome.replaceAll("_", " ")})`;
    case "refused":
      return `the running gateway refused the reload (${reload.status} ${reload.code}): ${reload.message}`;
    case "unreachable":
      return `no running gateway answered (${reload.message}); it loads the change at its next start`;
  }
}

export async function pluginsNpm(sub: NpmSubcommand, argv: string[], globals: { workspace?: string }): Promise<number> {
  const { values, positionals } = parseCommand(`prx plugins ${sub}`, argv, {
    transport: { type: "string" },
    name: { type: "string" },
    "allow-scripts": { type: "boolean" },
    url: { type: "string" },
    json: { type: "boolean" },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const [target, version, extra] = positionals;
  if (!target) throw usageError(`prx plugins ${sub}: missing ${sub === "add" ? "<npm-package>" : "<name>"}`);
  if (extra !== undefined || (sub !== "update" && version !== undefined)) throw usageError(`prx plugins ${sub}: unexpected argument '${extra ?? version}'`);
  const transport = values.transport ?? "worker";
  if (transport !== "worker" && transport !== "process") throw usageError(`prx plugins add: --transport is worker or process, not '${transport}'`);
  const workspace = openWorkspace(values.workspace ?? globals.workspace);
  const allowScripts = values["allow-scripts"] === true;
  const out = (report: Record<string, unknown>, text: string) =>
    process.stdout.write(values.json ? terminalJson(report, 2) + "\n" : text + "\n");
  if (sub === "remove") {
    const dir = removeNpmPlugin(workspace, target);
    const reload = await reloadRunning(workspace, target, values.url, true);
    out({ removed: dir, reload }, `removed ${dir}\n${describeReload(target, reload)}`);
    return 0;
  }
  const added =
    sub === "add"
      ? await addNpmPlugin(workspace, target, { transport, allowScripts, ...(values.name ? { name: values.name } : {}) })
      : await updateNpmPlugin(workspace, target, version, { allowScripts });
  const reload = await reloadRunning(workspace, added.name, values.url);
  const tools = added.check.tools.map((t) => t.name);
  out(
    { plugin: added.name, dir: added.dir, package: added.package, version: added.version, tools, reload },
    `${sub === "add" ? "added" : "updated"} ${added.package} ${added.version} as plugins/${added.name}` +
      `${tools.length ? ` (tools: ${tools.join(", ")})` : ""}\n${describeReload(added.name, reload)}`,
  );
  return reload.kind === "refused" ? 1 : 0;
}
