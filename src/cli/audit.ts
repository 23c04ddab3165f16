import { timeText } from "../core/time-text.ts";
import { sinceOf } from "./since.ts";
import { AUDIT_LIST_DEFAULT, AUDIT_LIST_MAX } from "../agent/approvals/limits.ts";
import { loadConfig } from "../config/loader.ts";
import { terminalJson, visible } from "../core/terminal.ts";
import { openWorkspace } from "../core/workspace.ts";
import { openStorage } from "../storage/index.ts";
import type { AuditEntry } from "../storage/types.ts";
import { parseCommand, usageError } from "./args.ts";

const USAGE = `Usage: prx audit [--since TIME] [--tool NAME] [--limit N] [--json]
  Every tool call, newest first: when, session, channel, sender, tool, decision and who made it, outcome, duration.
  --since TIME   an ISO time (2026-01-31T12:00:00Z) or a duration back from now (30m, 12h, 7d)
  --tool NAME    one tool's calls
  --limit N      at most N entries (default ${AUDIT_LIST_DEFAULT}, at most ${AUDIT_LIST_MAX})
`;

function line(e: AuditEntry): string {
  const who = e.sender ? ` ${visible(e.sender)}` : "";
  const error = e.error ? `  ${visible(e.error.split("\n")[0]!.slice(0, 120))}` : "";
  return (
    `${timeText(Number(e.at))}  ${visible(e.session_id)}  ${visible(e.channel)}${who}  ${visible(e.tool)} (${e.risk})  ` +
    `${e.decision} by ${visible(e.decided_by)}  ${e.outcome}  ${Math.round(Number(e.duration_ms))} ms  ${visible(e.args_preview.slice(0, 80))}${error}`
  );
}

export async function auditCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand("prx audit", argv, {
    json: { type: "boolean" },
    since: { type: "string" },
    tool: { type: "string" },
    limit: { type: "string" },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length > 0) throw usageError("prx audit takes no arguments (see prx audit --help)");
  if (values.limit !== undefined && !/^[1-9]\d*$/.test(values.limit)) throw usageError(`prx audit: --limit must be a positive whole number, got '${values.limit}'`);
  const limit = Math.min(values.limit === undefined ? AUDIT_LIST_DEFAULT : Number(values.limit), AUDIT_LIST_MAX);
  const since = values.since === undefined ? undefined : sinceOf("prx audit", values.since, Date.now());
  const workspace = openWorkspace(values.workspace);
  const { config } = loadConfig(workspace.configPath);
  const storage = await openStorage(config.storage, workspace.dbPath, process.env);
  try {
    const entries = await storage.audit.list({ ...(since === undefined ? {} : { since }), ...(values.tool ? { tool: values.tool } : {}), limit });
    if (values.json) {
      const rows = entries.map(({ args_preview, at, ...rest }) => ({
        ...rest,
        at: new Date(Number(at)).toISOString(),
        arguments_preview: args_preview,
        duration_ms: Number(rest.duration_ms),
      }));
      process.stdout.write(terminalJson(rows) + "\n");
    } else process.stdout.write(entries.length === 0 ? "no tool calls recorded\n" : entries.map(line).join("\n") + "\n");
    return 0;
  } finally {
    await storage.close();
  }
}
