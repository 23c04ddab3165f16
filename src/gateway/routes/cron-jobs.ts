import { z } from "zod";
import { PrxError } from "../../core/errors.ts";
import type { CronJobRunRow, CronJobStore, CronStateStore, SessionStore } from "../../storage/types.ts";
import { CRON_TOOL_RUNS_KEPT } from "../../tools/builtins/cron-limits.ts";
import { removeCronJob } from "../../tools/builtins/cron-store.ts";
import { viewJobs } from "../../tools/builtins/cron-view.ts";
import type { GatewayElysia } from "../elysia.ts";
import { jsonResponse } from "../errors.ts";
import { doc } from "../openapi/doc.ts";
import type { GatewayMount } from "../types.ts";

const CronJobSchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  session_id: z.string(),
  agent: z.string().nullable().describe("the agent of its session (null: the session holds no message yet)"),
  channel: z.string().describe("the channel the job was created from; it is delivered there"),
  chat_id: z.string().nullable(),
  thread_id: z.string().nullable(),
  owner: z.string().nullable().describe("who asked for it (the sender on a channel), or null"),
  schedule: z.record(z.string(), z.unknown()).describe('{kind: "at", at} | {kind: "every", every_ms, anchor_ms} | {kind: "cron", expr, tz?}'),
  payload: z.record(z.string(), z.unknown()).describe('{kind: "systemEvent", text} | {kind: "agentTurn", message}'),
  created_at: z.string(),
  next_run: z.string().nullable(),
  last_run: z.string().nullable(),
  last_error: z.string().nullable(),
  run_requested: z.boolean(),
});
const CronRunSchema = z.object({
  at: z.string(),
  slot: z.string().nullable().describe("the scheduled time it ran for; null: a run asked for outside the schedule"),
  ok: z.boolean(),
  detail: z.string(),
});
const CronJobListSchema = z.object({
  jobs: z.array(CronJobSchema.extend({ last_result: CronRunSchema.nullable().describe("its newest run, scheduled or asked for, or null") })),
});
const CronRunsSchema = z.object({ id: z.string(), runs: z.array(CronRunSchema) });
const DoneSchema = z.object({ id: z.string(), done: z.string() });

export interface CronJobsApi {
  jobs: () => CronJobStore;
  state: () => CronStateStore;
  /** Where each job's session tells its agent. */
  sessions: () => Pick<SessionStore, "get">;
}

/** Every job as the cron tool shows it, with its session's agent, its thread, who asked for it and its newest run. */
async function listJobs(api: CronJobsApi): Promise<z.input<typeof CronJobListSchema>> {
  const rows = await api.jobs().list();
  const views = await viewJobs(rows, api.state());
  const agents = new Map<string, string | null>();
  const jobs = [];
  for (const [i, view] of views.entries()) {
    const row = rows[i]!;
    if (!agents.has(row.session_id)) agents.set(row.session_id, (await api.sessions().get(row.session_id))?.agent ?? null);
    const [newest] = await api.jobs().runs(row.id, 1);
    jobs.push({ ...view, agent: agents.get(row.session_id)!, thread_id: row.thread_id, owner: row.owner, last_result: newest ? runView(newest) : null });
  }
  return { jobs };
}

function runView(run: CronJobRunRow): z.input<typeof CronRunSchema> {
  return { at: new Date(Number(run.at)).toISOString(), slot: run.slot === null ? null : new Date(Number(run.slot)).toISOString(), ok: run.ok, detail: run.detail };
}

async function existing(api: CronJobsApi, id: string): Promise<void> {
  if (!(await api.jobs().get(id))) throw new PrxError("NOT_FOUND", `no cron job "${id}"`, { status: 404, hint: "GET /api/cron/jobs lists them" });
}

/** `/api/cron/jobs`: the jobs the assistant scheduled with the cron tool (every session): list, run now, runs, remove. */
export function cronJobRoutes(api: CronJobsApi): GatewayMount {
  return (app: GatewayElysia) =>
    app
      .get("/api/cron/jobs", async () => jsonResponse(await listJobs(api)), {
        detail: doc({ summary: "The cron tool's jobs of every session, oldest first, with their next run", tags: ["cron"], responses: { 200: CronJobListSchema } }),
      })
      .post(
        "/api/cron/jobs/:id/run",
        async ({ params }) => {
          await existing(api, params.id);
          await api.jobs().requestRun(params.id, Date.now());
          return jsonResponse({ id: params.id, done: "queued" });
        },
        {
          detail: doc({
            summary: "Run a job now, outside its schedule: the process serving its channel delivers it within a second",
            tags: ["cron"],
            responses: { 200: DoneSchema },
            errors: [404],
          }),
        },
      )
      .get(
        "/api/cron/jobs/:id/runs",
        async ({ params }) => {
          await existing(api, params.id);
          const runs = await api.jobs().runs(params.id, CRON_TOOL_RUNS_KEPT);
          return jsonResponse({ id: params.id, runs: runs.map(runView) });
        },
        { detail: doc({ summary: "A job's last runs, newest first", tags: ["cron"], responses: { 200: CronRunsSchema }, errors: [404] }) },
      )
      .delete(
        "/api/cron/jobs/:id",
        async ({ params }) => {
          await existing(api, params.id);
          await removeCronJob(api.jobs(), api.state(), params.id);
          return jsonResponse({ id: params.id, done: "removed" });
        },
        { detail: doc({ summary: "Remove a job: it does not fire again", tags: ["cron"], responses: { 200: DoneSchema }, errors: [404] }) },
      );
}
