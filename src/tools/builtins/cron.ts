import { errorMessage, isPrxError, PrxError } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { CronJobStore, CronStateStore } from "../../storage/types.ts";
import { defineTool, describeIssues } from "../define.ts";
import { fail, ok } from "../result.ts";
import type { Tool, ToolContext, ToolResult } from "../types.ts";
import { CronArgs, CronJobArg } from "./cron-args.ts";
import { CRON_TOOL_MAX_JOBS, CRON_TOOL_MAX_JOBS_PER_SESSION, CRON_TOOL_POLL_MS, CRON_TOOL_RUNS_KEPT } from "./cron-limits.ts";
import { normalizeSchedule, planOf } from "./cron-plan.ts";
import { cronStateKey, removeCronJob } from "./cron-store.ts";
import { viewJobs } from "./cron-view.ts";
import { BUILTIN_TOOL_DESCRIPTIONS } from "./schemas.ts";

/** Where the cron tool keeps jobs, resolved at call time (the host's storage). */
export interface CronToolStores {
  jobs: CronJobStore;
  state: CronStateStore;
  now(): number;
}

const json = (value: unknown) => ok(JSON.stringify(value, null, 2));

/**
 * `cron`: the assistant schedules a reminder (systemEvent) or a turn (agentTurn) for this conversation; whichever
 * process serves the channel the job was created from delivers it there (src/agent/cron). A session sees and changes
 * only its own jobs.
 */
export function createCronTool(stores: () => CronToolStores, unavailable?: string): Tool {
  return defineTool({
    name: "cron",
    ...(unavailable === undefined ? {} : { unavailable }),
    description: BUILTIN_TOOL_DESCRIPTIONS.cron,
    args: CronArgs,
    async run(args, context) {
      try {
        return await act(stores(), args, context);
      } catch (error) {
        if (isPrxError(error, "BAD_REQUEST") || isPrxError(error, "LIMIT_EXCEEDED") || isPrxError(error, "NOT_FOUND")) {
          return fail(errorMessage(error));
        }
        throw error;
      }
    },
  });
}

async function act(s: CronToolStores, args: CronArgs, context: ToolContext): Promise<ToolResult> {
  if (args.action === "add") return add(s, args, context);
  if (args.action === "list") return json({ jobs: await viewJobs(await s.jobs.list(context.sessionId), s.state) });
  const id = args.jobId ?? args.id;
  if (id === undefined) return fail(`${args.action} needs jobId (the id add or list gave)`);
  const row = await s.jobs.get(id);
  if (!row || row.session_id !== context.sessionId) throw new PrxError("NOT_FOUND", `no cron job "${id}" in this conversation; list shows its jobs`);
  if (args.action === "remove") {
    await removeCronJob(s.jobs, s.state, id);
    return json({ removed: id });
  }
  if (args.action === "run") {
    await s.jobs.requestRun(id, s.now());
    return json({ id, queued: true, note: `runs within ${CRON_TOOL_POLL_MS / 1000} s and is delivered like a scheduled run` });
  }
  const runs = await s.jobs.runs(id, CRON_TOOL_RUNS_KEPT);
  return json({
    id,
    runs: runs.map((r) => ({ at: new Date(r.at).toISOString(), slot: r.slot === null ? null : new Date(r.slot).toISOString(), ok: r.ok, detail: r.detail })),
  });
}

async function add(s: CronToolStores, args: CronArgs, context: ToolContext): Promise<ToolResult> {
  if (args.job && (args.schedule || args.payload || args.name)) return fail("give the job either as job or as name/schedule/payload, not both");
  let given = args.job;
  if (!given) {
    if (!args.schedule || !args.payload) return fail("add needs job: {schedule, payload} (or schedule and payload beside action)");
    const beside = CronJobArg.safeParse({ ...(args.name === undefined ? {} : { name: args.name }), schedule: args.schedule, payload: args.payload });
    if (!beside.success) return fail(`invalid arguments for cron: ${describeIssues(beside.error)}`);
    given = beside.data;
  }
  const now = s.now();
  const schedule = normalizeSchedule(given.schedule, now);
  if ((await s.jobs.count(context.sessionId)) >= CRON_TOOL_MAX_JOBS_PER_SESSION) {
    throw new PrxError("LIMIT_EXCEEDED", `this conversation has ${CRON_TOOL_MAX_JOBS_PER_SESSION} cron jobs, the most it may have; remove one first`);
  }
  if ((await s.jobs.count()) >= CRON_TOOL_MAX_JOBS) {
    throw new PrxError("LIMIT_EXCEEDED", `the workspace has ${CRON_TOOL_MAX_JOBS} cron jobs, the most it may have`);
  }
  const origin = context.origin;
  const id = newId("cron").slice(5, 17);
  await s.jobs.add({
    id,
    name: given.name ?? null,
    session_id: context.sessionId,
    channel: origin?.channel ?? "gateway",
    chat_id: origin?.chatId ?? null,
    thread_id: origin?.threadId ?? null,
    owner: origin?.userId ?? null,
    schedule: JSON.stringify(schedule),
    payload: JSON.stringify(given.payload),
    created_at: now,
    run_requested_at: null,
  });
  // its slots count from now, whichever process picks it up and however late
  await s.state.ensure(cronStateKey(id), planOf(schedule).source, now);
  const [view] = await viewJobs([(await s.jobs.get(id))!], s.state);
  return json(view);
}
