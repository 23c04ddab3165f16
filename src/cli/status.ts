import { z } from "zod";
import { usageReport } from "../agent/index.ts";
import { loadConfig } from "../config/loader.ts";
import type { Config } from "../config/schema.ts";
import { errorMessage, isPrxError } from "../core/errors.ts";
import { terminalJson, visible } from "../core/terminal.ts";
import { openWorkspace, type Workspace } from "../core/workspace.ts";
import { ChannelInfoSchema } from "../gateway/routes/channels.ts";
import { PluginListResponseSchema } from "../plugins/api.ts";
import { openStorage } from "../storage/index.ts";
import { parseCommand, usageError } from "./args.ts";
import { runningGateway, type RunningGateway } from "./running-gateway.ts";
import { readdirSync } from "node:fs";

const USAGE = `Usage: prx status [--json]
  the workspace at a glance: is its config valid, is a gateway running (where, since when), its channels and
  plugins (as the running gateway sees them, else as configured), and today's usage.
`;

const GatewayStatusSchema = z.looseObject({ uptime_s: z.number(), provider: z.string(), model: z.string() });
const ChannelListSchema = z.object({ channels: z.array(ChannelInfoSchema) });
const UsageTotalSchema = z.looseObject({
  total: z.looseObject({ input_tokens: z.number(), output_tokens: z.number(), calls: z.number(), cost_usd: z.number() }),
});

export interface WorkspaceStatus {
  workspace: string;
  config: { ok: true; path: string | null } | { ok: false; error: string };
  gateway:
    | { running: true; pid: number; url: string; version: string; started_at: string; uptime_s: number | null; error?: string }
    | { running: false };
  model: { provider: string; model: string } | null;
  channels: Array<{ name: string; state: string; detail?: string }>;
  plugins: { count: number; states: Record<string, number> } | null;
  usage_today: { input_tokens: number; output_tokens: number; calls: number; cost_usd: number } | null;
}

/** What the running gateway says, each part on its own: one that fails leaves a note, not an error. */
async function fromGateway(gateway: RunningGateway, status: WorkspaceStatus): Promise<void> {
  const notes: string[] = [];
  const ask = async <T>(what: string, run: () => Promise<T>): Promise<T | null> => {
    try {
      return await run();
    } catch (error) {
      notes.push(`${what}: ${errorMessage(error)}`);
      return null;
    }
  };
  const [summary, channels, plugins, usage] = await Promise.all([
    ask("status", () => gateway.request("GET", "/api/status", GatewayStatusSchema)),
    ask("channels", () => gateway.request("GET", "/api/channels", ChannelListSchema)),
    ask("plugins", () => gateway.request("GET", "/api/plugins", PluginListResponseSchema)),
    ask("usage", () => gateway.request("GET", "/api/usage?since=1d", UsageTotalSchema)),
  ]);
  const { pid, url, version, started_at } = gateway.presence;
  status.gateway = { running: true, pid, url, version, started_at, uptime_s: summary?.uptime_s ?? null, ...(notes.length ? { error: notes.join("; ") } : {}) };
  if (summary) status.model = { provider: summary.provider, model: summary.model };
  if (channels) status.channels = channels.channels.map((c) => ({ name: c.name, state: c.state, ...(c.last_error ? { detail: c.last_error } : {}) }));
  if (plugins) status.plugins = { count: plugins.count, states: countBy(plugins.plugins.map((p) => p.status)) };
  if (usage) status.usage_today = pickTotals(usage.total);
}

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

function pickTotals(total: { input_tokens: number; output_tokens: number; calls: number; cost_usd: number }) {
  return { input_tokens: total.input_tokens, output_tokens: total.output_tokens, calls: total.calls, cost_usd: total.cost_usd };
}

/** With no gateway running: channels as configured, plugin folders, and today's usage from storage. */
async function fromWorkspace(workspace: Workspace, config: Config, status: WorkspaceStatus): Promise<void> {
  status.channels = Object.entries(config.channels).map(([name, channel]) => ({ name, state: channel.enabled ? "enabled (not running)" : "disabled" }));
  let folders: string[] = [];
  try {
    folders = readdirSync(workspace.pluginsDir, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  } catch {
    // no plugins folder: no plugins
  }
  status.plugins = { count: folders.length, states: folders.length ? { installed: folders.length } : {} };
  const storage = await openStorage(config.storage, workspace.dbPath, process.env);
  try {
    status.usage_today = pickTotals((await usageReport(storage.usage, config.budget, { now: Date.now(), since: "1d" })).total);
  } finally {
    await storage.close();
  }
}

export async function workspaceStatus(workspace: Workspace): Promise<WorkspaceStatus> {
  const status: WorkspaceStatus = {
    workspace: workspace.root,
    config: { ok: true, path: null },
    gateway: { running: false },
    model: null,
    channels: [],
    plugins: null,
    usage_today: null,
  };
  let config: Config | null = null;
  try {
    const loaded = loadConfig(workspace.configPath);
    config = loaded.config;
    status.config = { ok: true, path: loaded.path };
    status.model = { provider: config.default_provider, model: config.default_model };
  } catch (error) {
    status.config = { ok: false, error: isPrxError(error) ? error.describe() : errorMessage(error) };
  }
  const gateway = runningGateway(workspace);
  if (gateway) await fromGateway(gateway, status);
  else if (config) await fromWorkspace(workspace, config, status);
  return status;
}

function since(seconds: number): string {
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86_400)} days`;
}

export function formatStatus(status: WorkspaceStatus): string {
  const lines: string[] = [`workspace  ${status.workspace}`];
  lines.push(status.config.ok ? `config     ok (${status.config.path ?? "defaults: no config.toml"})` : `config     INVALID: ${status.config.error}`);
  const g = status.gateway;
  if (g.running) {
    const up = g.uptime_s === null ? "" : `, up ${since(g.uptime_s)}`;
    lines.push(`gateway    running at ${g.url} (pid ${g.pid}${up}, prx ${g.version})`);
    if (g.error) lines.push(`           not all of it answered: ${g.error}`);
  } else {
    lines.push("gateway    not running (start it with `prx gateway`)");
  }
  if (status.model) lines.push(`model      ${status.model.provider} / ${status.model.model}`);
  lines.push(`channels   ${status.channels.length ? status.channels.map((c) => `${c.name}: ${c.state}${c.detail ? ` (${c.detail})` : ""}`).join(", ") : "none configured"}`);
  if (status.plugins) {
    const states = Object.entries(status.plugins.states).map(([state, n]) => `${n} ${state}`).join(", ");
    lines.push(`plugins    ${status.plugins.count}${states ? ` (${states})` : ""}`);
  }
  if (status.usage_today) {
    const u = status.usage_today;
    lines.push(`today      ${u.calls} model calls, ${u.input_tokens} tokens in, ${u.output_tokens} out, $${u.cost_usd.toFixed(u.cost_usd !== 0 && u.cost_usd < 0.01 ? 6 : 2)}`);
  }
  return lines.join("\n");
}

export async function statusCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand("prx status", argv, { json: { type: "boolean" } });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length > 0) throw usageError("prx status takes no arguments (see prx status --help)");
  const status = await workspaceStatus(openWorkspace(values.workspace));
  const text = values.json === true ? terminalJson(status, 2) : visible(formatStatus(status), { multiline: true });
  process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
  return status.config.ok ? 0 : 1;
}
