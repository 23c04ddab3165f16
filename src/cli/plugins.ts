import { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { basename, resolve } from "node:path";
import { loadConfig } from "../config/loader.ts";
import { ConfigSchema } from "../config/schema.ts";
import { openDatabase } from "../core/database.ts";
import { errorMessage } from "../core/errors.ts";
import { nullPublisher } from "../core/events.ts";
import { createLogger } from "../core/logger.ts";
import { openWorkspace, type Workspace } from "../core/workspace.ts";
import { describePlugin, listPlugins, pluginInfo, reloadPlugin, type PluginInfo } from "../plugins/api.ts";
import { defaultAdapterFactories } from "../plugins/adapters/index.ts";
import { inspectPluginDir } from "../plugins/discovery.ts";
import { buildGeneration } from "../plugins/generation-build.ts";
import { loaderResolver } from "../plugins/loading.ts";
import { type PluginRuntime } from "../plugins/runtime.ts";
import { getPluginRuntime } from "../plugins/runtimes.ts";
import { StatusStore } from "../plugins/status.ts";
import { isSensitivePermission } from "../plugins/permissions.ts";
import { describeFuel } from "../plugins/wasm/inspect.ts";
import { parseCommand, unknownName, usageError } from "./args.ts";

const SUBCOMMANDS = ["list", "info", "reload", "validate", "probe"] as const;
const USAGE = `Usage: prx plugins <command> [--json]
  list              every plugin of the workspace with its status
  info <name>       one plugin: capabilities, permissions, counters, warnings
  reload <name> [--all] [--force]
                    build a new generation in this process: the plugin and those whose inputs changed are
                    rebuilt, the others carried over (--all: rebuild every plugin; --all without a name works
                    too); refused if an active plugin would fail, unless --force (a running gateway reloads live
                    with POST /api/plugins/<name>/reload or POST /api/plugins/reload)
  validate <dir>    check a plugin directory: manifest, admission limits, permissions, load and specs
  probe <action> [<json>] [--plugin P]
                    run wasm_plugins_manage in this process: list, status, reload, middleware_test, cron_run,
                    provider_chat, storage; <json> holds the action's fields, e.g.
                    prx plugins probe middleware_test '{"stage":"inbound","data":{...}}' --plugin redact
                    (a running gateway answers the same probes at POST /api/plugins/<name>/probe)
`;

function out(text: string): void {
  process.stdout.write(text.endsWith("\n") ? text : text + "\n");
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

function formatInfo(info: PluginInfo): string {
  const lines = [
    `${info.name} ${info.version ?? "?"} (${info.kind ?? "unknown kind"}) — ${info.status}`,
    ...(info.message ? [`  message: ${info.message.replaceAll("\n", "\n    ")}`] : []),
    `  dir: ${info.dir}`,
    ...(info.description ? [`  description: ${info.description}`] : []),
    `  permissions: required [${info.permissions.required.join(", ")}], optional [${info.permissions.optional.join(", ")}]`,
    `               granted [${info.permissions.granted.join(", ")}]` +
      (info.permissions.missing.length ? `, missing [${info.permissions.missing.join(", ")}]` : ""),
    "  capabilities:",
  ];
  for (const cap of info.capabilities) {
    const c = cap.counters;
    const extra = [
      cap.events.length ? `events ${cap.events.join(" ")}` : "",
      cap.schedule ? `schedule "${cap.schedule}"` : "",
      cap.type === "middleware" ? `stages ${cap.stages.join(",")}` : "",
    ].filter(Boolean);
    lines.push(
      `    ${cap.type}:${cap.name} priority ${cap.priority}${cap.live ? "" : " (no live adapter)"}${extra.length ? " " + extra.join(" ") : ""}`,
      `      invocations ${c.invocations}, errors ${c.errors}, last ${c.last_duration_ms ?? "-"} ms` +
        (c.last_event ? `, last event ${c.last_event.name} at ${c.last_event.at}` : "") +
        (c.last_error ? `\n      last error at ${c.last_error.at}: ${c.last_error.message}` : "") +
        (c.last_block
          ? `\n      blocks ${c.blocks}, last at ${c.last_block.at} (${c.last_block.stage}): ${c.last_block.reason}`
          : ""),
    );
  }
  if (info.capabilities.length === 0) lines.push("    (none)");
  if (info.remote) lines.push(...formatRemote(info.remote));
  for (const warning of info.warnings) lines.push(`  warning: ${warning}`);
  return lines.join("\n");
}

function formatRemote(r: NonNullable<PluginInfo["remote"]>): string[] {
  const surfaces = Object.entries(r.surfaces)
    .filter(([, names]) => names.length > 0)
    .map(([kind, names]) => `${kind} ${names.join(", ")}`);
  return [
    `  remote: ${r.transport} ${r.state}${r.pid ? ` pid ${r.pid}` : ""}${r.ready_ms === null ? "" : `, ready in ${r.ready_ms.toFixed(0)} ms`}, restarts ${r.restarts}`,
    `    calls ${r.calls}, failures ${r.failures}, timeouts ${r.timeouts}, in flight ${r.in_flight}, host calls ${r.host_calls}, callbacks ${r.callbacks}, refused lines ${r.malformed + r.oversize}`,
    ...(surfaces.length ? [`    surfaces: ${surfaces.join("; ")}`] : []),
    ...(r.last_error ? [`    last error: ${r.last_error}`] : []),
  ];
}

function openRuntime(workspace: Workspace): PluginRuntime {
  return getPluginRuntime(workspace, {
    db: openDatabase(workspace.dbPath),
    events: nullPublisher,
    memory: () => null,
    logger: createLogger("plugins"),
  }, { joinAfterMs: Infinity });
}

async function withRuntime(workspace: Workspace, run: (runtime: PluginRuntime) => Promise<number>): Promise<number> {
  const runtime = openRuntime(workspace);
  try {
    await runtime.start();
    return await run(runtime);
  } finally {
    await runtime.stop();
  }
}

async function validate(dirArg: string, workspace: Workspace, json: boolean): Promise<number> {
  const dir = resolve(dirArg);
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw usageError(`prx plugins validate: ${dir} is not a directory`);
  const found = inspectPluginDir(dir, basename(dir));
  const manifest = found.ok ? found.manifest : found.manifest;
  const notes: string[] = [];
  if (manifest) {
    const sensitive = [...manifest.permissions.required, ...manifest.permissions.optional].filter(isSensitivePermission);
    if (sensitive.length) {
      notes.push(`needs grants in config.toml: [plugins.${manifest.plugin.name}] grant = [${sensitive.map((p) => `"${p}"`).join(", ")}]`);
    }
    if (manifest.plugin.runtime === "wasm") notes.push(`fuel: ${describeFuel(manifest.resources.max_fuel ?? null)}`);
  }
  // Load with every declared permission granted, in a throwaway database: validate checks loadability, not policy.
  const name = found.name;
  const grant = manifest ? [...manifest.permissions.required, ...manifest.permissions.optional] : [];
  const config = ConfigSchema.parse({ plugins: { [name]: { grant } } });
  const db = new Database(":memory:");
  const logger = createLogger("plugins.validate");
  const status = new StatusStore();
  const { generation } = await buildGeneration({
    number: 1,
    pluginsDir: dir,
    config,
    host: { workspace, db, events: nullPublisher, memory: () => null, logger },
    loaders: loaderResolver(),
    factories: defaultAdapterFactories(),
    status,
    logger,
    discovered: [found],
  });
  try {
    const record = generation.plugins[0]!;
    const info = describePlugin(record, generation, status);
    const tools = generation.adapters.tool.map((t) => ({ name: t.spec.name, description: t.spec.description }));
    const ok = record.state === "active";
    if (json) {
      out(JSON.stringify({ valid: ok, plugin: info, tools, notes }, null, 2));
    } else {
      out(`${dir}: ${ok ? "valid" : "INVALID"}`);
      out(formatInfo(info));
      for (const tool of tools) out(`  tool spec: ${tool.name} — ${tool.description}`);
      for (const note of notes) out(`  ${note}`);
    }
    return ok ? 0 : 1;
  } finally {
    await generation.release(0);
    db.close();
  }
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
  const { parseProbeRequest, runProbe } = await import("../plugins/probes.ts");
  const { withPluginServices } = await import("../agent/plugin-extensions.ts");
  const request = parseProbeRequest({ ...(fields as object), action, ...(plugin !== undefined ? { plugin } : {}) });
  const { config } = loadConfig(workspace.configPath);
  const response = await withPluginServices(workspace, config, (services) => runProbe(services, request));
  if (json) out(JSON.stringify(response, null, 2));
  else {
    const scope = response.plugin ? ` ${response.plugin}` : "";
    out(`${response.action}${scope} (generation ${response.generation}):\n${JSON.stringify(response.result, null, 2)}`);
  }
  return 0;
}

export async function pluginsCommand(argv: string[], globals: { workspace?: string }): Promise<number> {
  const { values, positionals } = parseCommand("prx plugins", argv, {
    json: { type: "boolean" },
    plugin: { type: "string" },
    all: { type: "boolean" },
    force: { type: "boolean" },
  });
  const [sub, arg] = positionals;
  if (values.help || !sub) {
    process.stdout.write(USAGE);
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
        if (json) out(JSON.stringify(list, null, 2));
        else if (list.count === 0) out(`no plugins in ${workspace.pluginsDir}`);
        else {
          const rows = list.plugins.map((p) => [p.name, p.version ?? "?", p.kind ?? "-", p.status, capabilityList(p), firstLine(p.message)]);
          out(table([["NAME", "VERSION", "KIND", "STATUS", "CAPABILITIES", "MESSAGE"], ...rows]));
        }
        return 0;
      });
    case "info":
      return withRuntime(workspace, async (runtime) => {
        const info = pluginInfo(runtime, arg!);
        out(json ? JSON.stringify(info, null, 2) : formatInfo(info));
        return info.status === "error" ? 1 : 0;
      });
    default:
      return withRuntime(workspace, async (runtime) => {
        try {
          const result = await reloadPlugin(runtime, fullReload ? undefined : arg!, { all: fullReload, force: values.force === true });
          const where = `in this process; a running gateway reloads live via POST /api/plugins/${fullReload ? "" : `${arg}/`}reload`;
          const outcomes = result.plugins.map((p) => `  ${p.name}: ${p.outcome.replaceAll("_", " ")}${p.error ? ` (${p.error})` : ""}`);
          if (json) out(JSON.stringify({ ...result, ...(fullReload ? {} : { plugin: pluginInfo(runtime, arg!) }) }, null, 2));
          else out(`${fullReload ? "full reload" : `reload of "${arg}"`} succeeded: generation ${result.generation} (${where})\n${outcomes.join("\n")}`);
          return 0;
        } catch (error) {
          if (json) out(JSON.stringify({ success: false, error: errorMessage(error) }, null, 2));
          throw error;
        }
      });
  }
}
