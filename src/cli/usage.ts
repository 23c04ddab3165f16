import { UsageGroups, usageReport, type UsageReport } from "../agent/index.ts";
import { loadConfig } from "../config/loader.ts";
import { terminalJson, visible } from "../core/terminal.ts";
import { openWorkspace } from "../core/workspace.ts";
import { openStorage } from "../storage/index.ts";
import type { UsageGroup } from "../storage/types.ts";
import { parseCommand, unknownName, usageError } from "./args.ts";

const USAGE = `Usage: prx usage [--since DAY|Nd] [--group ${UsageGroups.join("|")}] [--json]
  tokens and cost of model calls, per day (default), session, model, channel or agent, from --since (a day
  YYYY-MM-DD, or 7d for today and the 6 days before; default 30d) to today. Days are counted in
  [budget] time_zone; models whose prices are unknown count tokens but no cost.
`;

function usd(value: number): string {
  return `$${value.toFixed(value !== 0 && value < 0.01 ? 6 : 2)}`;
}

function table(report: UsageReport): string {
  const width = Math.max(12, ...report.rows.map((row) => visible(row.key).length));
  const lines = [`${report.group.padEnd(width)}  ${"input".padStart(12)}  ${"cached".padStart(12)}  ${"output".padStart(12)}  ${"calls".padStart(7)}  cost`];
  for (const row of [...report.rows, { key: "total", ...report.total }]) {
    lines.push(
      `${visible(row.key).padEnd(width)}  ${String(row.input_tokens).padStart(12)}  ${String(row.cached_input_tokens).padStart(12)}  ${String(row.output_tokens).padStart(12)}  ${String(row.calls).padStart(7)}  ${usd(row.cost_usd)}`,
    );
  }
  return `${report.since} .. ${report.until} (${report.time_zone})\n${lines.join("\n")}`;
}

export async function usageCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand("prx usage", argv, {
    json: { type: "boolean" },
    since: { type: "string" },
    group: { type: "string" },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length > 0) throw usageError("prx usage takes no arguments (see prx usage --help)");
  const group = values.group;
  if (group !== undefined && !(UsageGroups as readonly string[]).includes(group)) throw unknownName("group", group, UsageGroups, "prx usage");
  const workspace = openWorkspace(values.workspace);
  const { config } = loadConfig(workspace.configPath);
  const storage = await openStorage(config.storage, workspace.dbPath, process.env);
  try {
    const options = { now: Date.now(), ...(values.since ? { since: values.since } : {}), ...(group ? { group: group as UsageGroup } : {}) };
    const report = await usageReport(storage.usage, config.budget, options);
    const text = values.json === true ? terminalJson(report) : table(report);
    process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
    return 0;
  } finally {
    await storage.close();
  }
}
