import { statSync } from "node:fs";
import { resolve } from "node:path";
import { loadConfig } from "../config/loader.ts";
import { errorMessage } from "../core/errors.ts";
import { terminalJson, visible } from "../core/terminal.ts";
import { nullPublisher } from "../core/events.ts";
import { createLogger } from "../core/logger.ts";
import { openWorkspace, type Workspace } from "../core/workspace.ts";
import { listPlugins, pluginInfo, PluginReloadResponseSchema, reloadPlugin, type PluginInfo } from "../plugins/api.ts";
import { checkPluginDir } from "../plugins/kit/check.ts";
import { getPluginRuntime, type PluginRuntime } from "../plugins/runtime/index.ts";
import { openSqliteStorage } from "../storage/open.ts";
import type { Storage } from "../storage/types.ts";
import { parseCommand, unknownName, usageError } from "./args.ts";
import { hoistGlobalOptions } from "./global-options.ts";
import { formatCheck, formatInfo, statusText } from "./plugins-format.ts";
import { KIT_SUBCOMMANDS, runKitCommand } from "./plugins-kit.ts";
import { PLUGINS_USAGE } from "./plugins-usage.ts";
import { runningGateway, type RunningGateway } from "./running-gateway.ts";

export const SUBCOMMANDS = ["list", "info", "reload", "validate", "probe", ...KIT_SUBCOMMANDS] as const;

/** Plugin, server and stored text reach the terminal only through visible(); JSON goes through terminalJson. */
function out(text: string): void {
  const shown = visible(text, { multiline: true });
  process.stdout.write(shown.endsWith("\n") ? shown : shown + "\n");
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((row) => row[col]!.length)));
  return rows.map((row) => row.map((cell, col) => cell.padEnd(widths[col]!)).join("  ").trimEnd()).join("\n");
}

function capabilityList(info: PluginInfo): string {
  return info.capabilities.map((c) => `${c.type}:${c.name}`).join(", ") || "-";
}

function firstLine(text: string | null): string {
  return text ? text.split("\n")[0]! : "";
}

function openRuntime(workspace: Workspace, storage: Storage): PluginRuntime {
  return getPluginRuntime(workspace, {
    storage,
    events: nullPublisher,
    memory: () => null,
    logger: createLogger("plugins"),
  }, { joinAfterMs: Infinity });
}

async function withRuntime(workspace: Workspace, run: (runtime: PluginRuntime) => Promise<number>): Promise<number> {
  const storage = openSqliteStorage(workspace.dbPath);
  const runtime = openRuntime(workspace, storage);
  try {
    await runtime.start();
    return await run(runtime);
  } finally {
    await runtime.stop();
    await storage.close();
  }
}

async function validate(dirArg: string, workspace: Workspace, json: boolean): Promise<number> {
  const dir = resolve(dirArg);
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw usageError(`prx plugins validate: ${dir} is not a directory`);
  const report = await checkPluginDir(dir, workspace);
  if (json) out(terminalJson({ valid: report.ok, plugin: report.info, tools: report.tools, notes: report.notes }, 2));
  else out(formatCheck(dir, report));
  return report.ok ? 0 : 1;
}

async function probe(
  workspace: Workspace,
  action: string,
  rest: string[],
  plugin: string | undefined,
  json: boolean,
): Promise<number> {
  if (rest.length > 1) {
    throw usageError(`prx plugins probe: expected at most one JSON argument after the action, got ${rest.length}`);
  }
  let fields: unknown = {};
  if (rest[0] !== undefined) {
    try {
      fields = JSON.parse(rest[0]);
    } catch (error) {
      throw usageError(`prx plugins probe: the argument after the action must be a JSON object: ${(error as Error).message}`);
    }
    if (!fields || typeof fields !== "object" || Array.isArray(fields)) {
      throw usageError("prx plugins probe: the JSON argument must be an object");
    }
  }
  const { parseProbeRequest, runProbe } = await import("../plugins/probes/index.ts");
  const { withPluginServices } = await import("../agent/plugin-extensions.ts");
  const request = parseProbeRequest({ ...(fields as object), action, ...(plugin !== undefined ? { plugin } : {}) });
  const { config } = loadConfig(workspace.configPath);
  const response = await withPluginServices(workspace, config, (services) => runProbe(services, request));
  if (json) out(terminalJson(response, 2));
  else {
    const scope = response.plugin ? ` ${response.plugin}` : "";
    out(`${response.action}${scope} (generation ${response.generation}):\n${terminalJson(response.result, 2)}`);
  }
  return 0;
}

export async function pluginsCommand(given: string[], globals: { workspace?: string }): Promise<number> {
  const argv = hoistGlobalOptions(given, "prx plugins");
  const kit = KIT_SUBCOMMANDS.find((name) => name === argv[0]);
  if (kit) return runKitCommand(kit, argv.slice(1), globals);
  if (argv[0] === "add" || argv[0] === "update" || argv[0] === "remove") {
    return (await import("./plugins-npm.ts")).pluginsNpm(argv[0], argv.slice(1), globals);
  }
  const { values, positionals } = parseCommand("prx plugins", argv, {
    json: { type: "boolean" },
    plugin: { type: "string" },
    all: { type: "boolean" },
    force: { type: "boolean" },
  });
  const [sub, arg] = positionals;
  if (values.help || !sub) {
    process.stdout.write(PLUGINS_USAGE);
    return sub || values.help ? 0 : 2;
  }
  if (!SUBCOMMANDS.includes(sub as (typeof SUBCOMMANDS)[number])) throw unknownName("subcommand", sub, SUBCOMMANDS, "prx plugins");
  const json = values.json === true;
  const workspace = openWorkspace(values.workspace ?? globals.workspace);
  const what = sub === "validate" ? "<dir>" : sub === "probe" ? "<action>" : "<name>";
  const fullReload = sub === "reload" && values.all === true;
  if (sub !== "list" && !arg && !fullReload) throw usageError(`prx plugins ${sub}: missing ${what}`);
  // Fail early with the config's own message rather than inside a generation build.
  loadConfig(workspace.configPath);
  switch (sub) {
    case "validate":
      return validate(arg!, workspace, json);
    case "probe":
      return probe(workspace, arg!, positionals.slice(2), values.plugin, json);
    case "list":
      return withRuntime(workspace, async (runtime) => {
        const list = listPlugins(runtime);
        if (json) out(terminalJson(list, 2));
        else if (list.count === 0) out(`no plugins in ${workspace.pluginsDir}`);
        else {
          const rows = list.plugins.map((p) => [p.name, p.version ?? "?", p.kind ?? "-", statusText(p), capabilityList(p), firstLine(p.message)]);
          out(table([["NAME", "VERSION", "KIND", "STATUS", "CAPABILITIES", "MESSAGE"], ...rows]));
        }
        return 0;
      });
    case "info":
      return withRuntime(workspace, async (runtime) => {
        const info = pluginInfo(runtime, arg!);
        out(json ? terminalJson(info, 2) : formatInfo(info));
        return info.status === "error" ? 1 : 0;
      });
    default: {
      const gateway = runningGateway(workspace);
      if (gateway) return reloadInGateway(gateway, fullReload ? undefined : arg!, values.force === true, json);
      return withRuntime(workspace, async (runtime) => {
        try {
          const result = await reloadPlugin(runtime, fullReload ? undefined : arg!, { all: fullReload, force: values.force === true });
          const where = "checked in this process: no gateway of this workspace is running; the next one loads it";
          const outcomes = result.plugins.map((p) => `  ${p.name}: ${p.outcome.replaceAll("_", " ")}${p.error ? ` (${p.error})` : ""}`);
          if (json) out(terminalJson({ ...result, ...(fullReload ? {} : { plugin: pluginInfo(runtime, arg!) }) }, 2));
          else out(`${fullReload ? "full reload" : `reload of "${arg}"`} succeeded: generation ${result.generation} (${where})\n${outcomes.join("\n")}`);
          return 0;
        } catch (error) {
          if (json) out(terminalJson({ success: false, error: errorMessage(error) }, 2));
          throw error;
        }
      });
    }
  }
}

/** A reload done by the workspace's running gateway (every replica of it, with a shared bus), as its API does it. */
async function reloadInGateway(gateway: RunningGateway, name: string | undefined, force: boolean, json: boolean): Promise<number> {
  const path = `/api/plugins/${name === undefined ? "" : `${encodeURIComponent(name)}/`}reload${force ? "?force=true" : ""}`;
  try {
    const result = await gateway.request("POST", path, PluginReloadResponseSchema);
    const where = `in the running gateway: pid ${gateway.presence.pid} at ${gateway.presence.url}`;
    const outcomes = result.plugins.map((p) => `  ${p.name}: ${p.outcome.replaceAll("_", " ")}${p.error ? ` (${p.error})` : ""}`);
    if (json) out(terminalJson(result, 2));
    else out(`${name === undefined ? "full reload" : `reload of "${name}"`} succeeded: generation ${result.generation} (${where})\n${outcomes.join("\n")}`);
    return 0;
  } catch (error) {
    if (json) out(terminalJson({ success: false, error: errorMessage(error) }, 2));
    throw error;
  }
}
