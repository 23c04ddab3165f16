import { timeText } from "../core/time-text.ts";
import { loadConfig } from "../config/loader.ts";
import { PrxError } from "../core/errors.ts";
import { terminalJson, visible } from "../core/terminal.ts";
import { openWorkspace } from "../core/workspace.ts";
import { openStorage } from "../storage/index.ts";
import type { Storage } from "../storage/types.ts";
import { CRON_TOOL_POLL_MS, CRON_TOOL_RUNS_KEPT } from "../tools/builtins/cron-limits.ts";
import { removeCronJob } from "../tools/builtins/cron-store.ts";
import { viewJobs, type CronJobView } from "../tools/builtins/cron-view.ts";
import { parseCommand, unknownName, usageError } from "./args.ts";

export const SUBCOMMANDS = ["list", "rm", "run", "runs"] as const;
const USAGE = `Usage: prx cron <command> [--json]
  list [--session ID]   the jobs the assistant scheduled (cron tool): id, next run, channel and chat, what it does
  rm <id>...            remove jobs (they do not fire again)
  run <id>              run a job now, outside its schedule: the process serving its channel delivers it within
                        ${CRON_TOOL_POLL_MS / 1000} s (the gateway, or the channel's process)
  runs <id>             a job's last runs (at most ${CRON_TOOL_RUNS_KEPT}), newest first
`;

function what(job: CronJobView): string {
  const p = job.payload;
  return p.kind === "systemEvent" ? `remind: ${p.text}` : `ask: ${p.message}`;
}

function when(job: CronJobView): string {
  const s = job.schedule;
  if (s.kind === "at") return `at ${timeText(s.at)}`;
  if (s.kind === "every") return `every ${s.every_ms} ms`;
  return `cron "${s.expr}"${s.tz ? ` ${s.tz}` : ""}`;
}

function line(job: CronJobView): string {
  const where = `${job.channel}${job.chat_id ? `:${job.chat_id}` : ""}`;
  const name = job.name ? ` (${visible(job.name)})` : "";
  const next = (job.next_run && timeText(job.next_run)) ?? (job.last_error ? `not again: ${job.last_error.slice(0, 80)}` : "not again");
  return `${job.id}${name}  ${visible(when(job))}  next ${visible(next)}  ${visible(where)}  ${visible(job.session_id)}  ${visible(what(job).slice(0, 80))}`;
}

function notFound(id: string): PrxError {
  return new PrxError("NOT_FOUND", `no cron job "${id}"`, { hint: "list them with `prx cron list`" });
}

export async function cronCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand("prx cron", argv, { json: { type: "boolean" }, session: { type: "string" } });
  const [sub, ...args] = positionals;
  if (values.help || sub === undefined) {
    (values.help ? process.stdout : process.stderr).write(USAGE);
    return values.help ? 0 : 2;
  }
  if (!(SUBCOMMANDS as readonly string[]).includes(sub)) throw unknownName("prx cron", sub, SUBCOMMANDS);
  if (sub === "list" && args.length > 0) throw usageError("prx cron list takes no arguments (see prx cron --help)");
  if (sub !== "list" && args.length === 0) throw usageError(`prx cron ${sub} needs a job id (see prx cron list)`);
  if ((sub === "run" || sub === "runs") && args.length > 1) throw usageError(`prx cron ${sub} takes one job id`);
  const workspace = openWorkspace(values.workspace);
  const { config } = loadConfig(workspace.configPath);
  const storage = await openStorage(config.storage, workspace.dbPath, process.env);
  try {
    return await act(storage, sub as (typeof SUBCOMMANDS)[number], args, values);
  } finally {
    await storage.close();
  }
}

async function act(storage: Storage, sub: (typeof SUBCOMMANDS)[number], ids: string[], values: { json?: boolean; session?: string }): Promise<number> {
  const print = (json: unknown, text: string) => process.stdout.write((values.json ? terminalJson(json) : text) + "\n");
  if (sub === "list") {
    const jobs = await viewJobs(await storage.cronJobs.list(values.session), storage.cron);
    print(jobs, jobs.length === 0 ? "no cron jobs" : jobs.map(line).join("\n"));
    return 0;
  }
  if (sub === "rm") {
    for (const id of ids) if (!(await storage.cronJobs.get(id))) throw notFound(id);
    for (const id of ids) {
      await removeCronJob(storage.cronJobs, storage.cron, id);
    }
    print({ removed: ids }, ids.map((id) => `removed ${id}`).join("\n"));
    return 0;
  }
  const id = ids[0]!;
  if (!(await storage.cronJobs.get(id))) throw notFound(id);
  if (sub === "run") {
    await storage.cronJobs.requestRun(id, Date.now());
    print({ id, queued: true }, `${id}: asked to run; the process serving its channel runs it within ${CRON_TOOL_POLL_MS / 1000} s`);
    return 0;
  }
  const runs = (await storage.cronJobs.runs(id, CRON_TOOL_RUNS_KEPT)).map((r) => ({
    at: new Date(Number(r.at)).toISOString(),
    slot: r.slot === null ? null : new Date(Number(r.slot)).toISOString(),
    ok: r.ok,
    detail: r.detail,
  }));
  print(
    { id, runs },
    runs.length === 0 ? `${id}: no runs yet` : runs.map((r) => `${timeText(r.at)}  ${r.ok ? "ok  " : "fail"}  ${r.slot ? `slot ${timeText(r.slot)}` : "manual"}  ${visible(r.detail.split("\n")[0]!.slice(0, 100))}`).join("\n"),
  );
  return 0;
}
